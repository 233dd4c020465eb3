import ct from 'covertable';
console.log(Object.keys(ct));
const make = (ct as any).make ?? (ct as any).default?.make;
const f = Array.from({ length: 20 }, () => [0, 1]);
for (const t of [2,3,4]) {
const a = performance.now();
const rows = make(f, { length: t });
console.log(t, rows.length, (performance.now() - a).toFixed(0), JSON.stringify(rows[0]));
}

/**
 * Covering-array size and generation time, faultline against outside generators run in the same
 * process and the same rounds:
 * - covertable (the npm package, a pinned devDependency; `make(factors, {length: t})`, default
 *   options — the only native TypeScript t-wise generator, research note §3.1);
 * - PICT, when `--pict PATH` names a binary you built (`/o:t`, default seed). It is not part of
 *   this repository: build it from github.com/microsoft/pict outside the checkout, e.g.
 *   `git clone https://github.com/microsoft/pict /tmp/pict && make -C /tmp/pict`, then pass
 *   `--pict /tmp/pict/pict`.
 * Every array — ours and theirs — goes through faultline's independent coverage checker
 * (covering-check.ts), and a hole is printed, not hidden. The best-known sizes (Colbourn's
 * tables via the research note §1.2) are a labelled reference column only, typed in from there;
 * nothing is compared with a number that was not measured in this run except that column.
 *
 * Cases: binary factors k = 4…20 at t = 2, 3, 4; 40 binary factors at t = 3; four mixed-level
 * models. faultline's time is CPU time of this process (and wall time), the others' wall time.
 *
 * Usage: node --import tsx bench/covering.ts [--t 2,3,4] [--rounds 1] [--pict PATH] [--no-covertable]
 *   --rounds N   repeat each case N times, generators interleaved, and report median times
 *   --help       this text
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConstraintSet } from '../src/matrix/constraints.js';
import { checkCoverage } from '../src/matrix/covering-check.js';
import { buildCoveringArray } from '../src/matrix/covering.js';
import type { FactorSpace } from '../src/matrix/space.js';

if (process.argv.includes('--help')) {
  const text = (await import('node:fs')).readFileSync(new URL(import.meta.url), 'utf8');
  console.log(text.slice(text.indexOf('/**') + 3, text.indexOf('*/')).replace(/^ \* ?/gm, '').trim());
  process.exit(0);
}

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const strengths = (arg('t') ?? '2,3,4').split(',').map(Number);
const rounds = Number(arg('rounds') ?? 1);
const pict = arg('pict');
const withCovertable = !process.argv.includes('--no-covertable');
const covertableMake = (createRequire(import.meta.url)('covertable') as { make: (f: number[][], o: { length: number }) => number[][] }).make;

interface Case {
  name: string;
  t: number;
  sizes: number[];
  /** Research note §1.2 (Colbourn tables, Nov-2024 snapshot): best-known N, binary only. */
  best?: number;
  /** Mixed models: the simple lower bound of §1.2 (no published best-known value). */
  lowerBound?: number;
}

// Best-known CAN(t,k,2) for k = 4…20 (research note §1.2 table), and for k = 40 at t = 3.
const BEST: Record<number, number[]> = {
  2: [5, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8],
  3: [8, 10, 12, 12, 12, 12, 12, 12, 15, 16, 16, 17, 17, 18, 18, 18, 18],
  4: [16, 16, 21, 24, 24, 24, 24, 24, 24, 32, 35, 35, 35, 35, 36, 39, 39],
};
const cases: Case[] = [];
for (const t of strengths) {
  for (let k = Math.max(4, t); k <= 20; k++) cases.push({ name: `2^${k}`, t, sizes: Array(k).fill(2), best: BEST[t][k - 4] });
  if (t === 3) cases.push({ name: '2^40', t, sizes: Array(40).fill(2) });
}
const MIXED: Case[] = [
  { name: '3^1 2^9', t: 3, sizes: [3, ...Array(9).fill(2)], lowerBound: 18 },
  { name: '3^2 2^8', t: 3, sizes: [3, 3, ...Array(8).fill(2)], lowerBound: 18 },
  { name: '4^1 3^2 2^12', t: 3, sizes: [4, 3, 3, ...Array(12).fill(2)], lowerBound: 36 },
  { name: '3^1 2^9', t: 2, sizes: [3, ...Array(9).fill(2)], lowerBound: 6 },
];
cases.push(...MIXED.filter((m) => strengths.includes(m.t)));

const spaceOf = (sizes: number[]): FactorSpace => ({
  names: sizes.map((_, i) => `f${i}`),
  levels: sizes.map((n) => Array.from({ length: n }, (_, v) => `${v}`)),
});

/** Rows, seconds and whether our checker finds full coverage. */
interface Measured {
  rows: number;
  seconds: number;
  cpu?: number;
  covered: boolean;
}

function checked(c: Case, rows: number[][]): boolean {
  const s = spaceOf(c.sizes);
  return checkCoverage(s, new ConstraintSet(s, []), c.t, rows).ok;
}

function runFaultline(c: Case): Measured {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const ca = buildCoveringArray(spaceOf(c.sizes), { strength: c.t });
  const seconds = (performance.now() - t0) / 1000;
  const u = process.cpuUsage(cpu0);
  // buildCoveringArray throws unless its own array passes the checker; check again here anyway
  return { rows: ca.rows.length, seconds, cpu: (u.user + u.system) / 1e6, covered: checked(c, ca.rows) };
}

function runCovertable(c: Case): Measured {
  const t0 = performance.now();
  const rows = covertableMake(c.sizes.map((n) => Array.from({ length: n }, (_, v) => v)), { length: c.t });
  return { rows: rows.length, seconds: (performance.now() - t0) / 1000, covered: checked(c, rows) };
}

function runPict(c: Case, dir: string): Measured {
  const model = join(dir, 'model.txt');
  writeFileSync(model, c.sizes.map((n, i) => `f${i}: ${Array.from({ length: n }, (_, v) => v).join(', ')}`).join('\n') + '\n');
  const t0 = performance.now();
  const out = execFileSync(pict as string, [model, `/o:${c.t}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  const rows = out.trim().split('\n').slice(1).map((line) => line.split('\t').map(Number));
  return { rows: rows.length, seconds, covered: checked(c, rows) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'fl-bench-covering-'));
const results: { c: Case; fl: Measured; ct?: Measured; pict?: Measured }[] = [];
const started = performance.now();
try {
  for (const c of cases) {
    const runs: { fl: Measured[]; ct: Measured[]; pict: Measured[] } = { fl: [], ct: [], pict: [] };
    for (let r = 0; r < rounds; r++) {
      runs.fl.push(runFaultline(c));
      if (withCovertable) runs.ct.push(runCovertable(c));
      if (pict) runs.pict.push(runPict(c, dir));
    }
    const merge = (ms: Measured[]): Measured | undefined =>
      ms.length
        ? {
            rows: ms[0].rows,
            seconds: median(ms.map((m) => m.seconds)),
            ...(ms[0].cpu !== undefined ? { cpu: median(ms.map((m) => m.cpu as number)) } : {}),
            covered: ms.every((m) => m.covered),
          }
        : undefined;
    results.push({ c, fl: merge(runs.fl) as Measured, ct: merge(runs.ct), pict: merge(runs.pict) });
    process.stderr.write(`${c.t} ${c.name}: ${runs.fl[0].rows}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const cell = (m: Measured | undefined): [string, string] =>
  m ? [`${m.rows}${m.covered ? '' : ' HOLES'}`, m.seconds.toFixed(m.seconds < 0.1 ? 3 : 2)] : ['—', ''];
const header = ['t', 'model', 'faultline', 'cpu s', 'wall s', 'covertable', 's', 'vs covertable', 'PICT', 's', 'vs PICT', 'best known (table)'];
const table = [header];
for (const { c, fl, ct, pict: p } of results) {
  table.push([
    String(c.t),
    c.name,
    `${fl.rows}${fl.covered ? '' : ' HOLES'}`,
    (fl.cpu ?? 0).toFixed(2),
    fl.seconds.toFixed(2),
    ...cell(ct),
    ct ? (fl.rows / ct.rows).toFixed(2) : '',
    ...cell(p),
    p ? (fl.rows / p.rows).toFixed(2) : '',
    c.best !== undefined ? String(c.best) : c.lowerBound !== undefined ? `≥${c.lowerBound} (lower bound)` : '',
  ]);
}
const widths = header.map((_, j) => Math.max(...table.map((r) => r[j].length)));
console.log(
  `covering-array bench: ${rounds} round(s), median times; coverage of every array checked by faultline's independent checker; ` +
    `load ${loadavg().map((x) => x.toFixed(1)).join(' ')} (other work on this machine inflates wall times, not sizes or CPU)`,
);
for (const r of table) console.log(r.map((v, j) => v.padStart(widths[j])).join('  '));
const binary = results.filter((r) => r.c.best !== undefined);
console.log(`binary cases at the best-known size: ${binary.filter((r) => r.fl.rows === r.c.best).length}/${binary.length}`);
const ratios = (pick: (r: (typeof results)[number]) => Measured | undefined) =>
  results.flatMap((r) => (pick(r) ? [r.fl.rows / (pick(r) as Measured).rows] : []));
if (withCovertable) console.log(`faultline rows / covertable rows: median ${median(ratios((r) => r.ct)).toFixed(2)}, worst ${Math.max(...ratios((r) => r.ct)).toFixed(2)}`);
if (pict) console.log(`faultline rows / PICT rows: median ${median(ratios((r) => r.pict)).toFixed(2)}, worst ${Math.max(...ratios((r) => r.pict)).toFixed(2)}`);
for (const [t, name] of [[3, '2^40'], [4, '2^20']] as const) {
  const r = results.find((x) => x.c.t === t && x.c.name === name);
  if (r) console.log(`generation time target (≤ 2 s): t=${t} ${name}: ${r.fl.rows} rows in ${(r.fl.cpu ?? 0).toFixed(2)} s CPU, ${r.fl.seconds.toFixed(2)} s wall`);
}
console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);

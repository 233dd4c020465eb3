import { buildCoveringArray } from '../src/matrix/covering.js';
import { binarySpace } from '../src/matrix/testing.js';
const out: string[] = [];
for (const [k, t] of [[14, 3], [16, 3], [18, 3], [20, 3], [16, 4], [13, 4], [40, 3], [20, 4]]) {
  const a = process.cpuUsage();
  const ca = buildCoveringArray(binarySpace(k), { strength: t });
  const u = process.cpuUsage(a);
  out.push(`${k}/${t}:${ca.rows.length}${ca.shrink.stoppedBy[0]} ${((u.user + u.system) / 1e6).toFixed(2)}s`);
}
console.log(out.join(' | '));

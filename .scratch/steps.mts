import { buildCoveringArray } from '../src/matrix/covering.js';
import { binarySpace } from '../src/matrix/testing.js';
for (const [k, t] of [[4, 2], [20, 2], [10, 3], [20, 3], [20, 4], [40, 3]]) {
  const a = process.cpuUsage();
  const ca = buildCoveringArray(binarySpace(k), { strength: t });
  const u = process.cpuUsage(a);
  console.log(k, t, ca.rows.length, ca.shrink.steps, ca.shrink.work, ca.shrink.stoppedBy, ((u.user + u.system) / 1e6).toFixed(2), 'µs/step', ((u.user + u.system) / ca.shrink.steps).toFixed(2));
}

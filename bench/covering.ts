/**
 * Covering-array sizes against the best-known values (research note combinatorial-testing.md
 * §1.2: Colbourn tables, Nov-2024 snapshot) and against PICT's default run measured there, for
 * binary factors at t = 2, 3, 4 and k = 4…20, plus three mixed-level models (§1.2, no published
 * best-known: the simple lower bound and covertable 3.2 + SA are shown instead).
 * Every array is checked for full coverage by the independent checker inside buildCoveringArray.
 *
 * Usage: node --import tsx bench/covering.ts [--steps 20000] [--jobs N] [--t 2,3,4]
 * (--jobs runs cases in child processes; sizes do not depend on it.)
 */
import { availableParallelism } from 'node:os';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildCoveringArray } from '../src/matrix/covering.js';
import type { FactorSpace } from '../src/matrix/space.js';

interface Case {
  name: string;
  t: number;
  sizes: number[];
  best?: number;
  lowerBound?: number;
  pict?: number;
  covertable?: string;
}

// Best-known CAN(t,k,2) for k = 4…20 and PICT default sizes (research note §1.2 table).
const BEST: Record<number, number[]> = {
  2: [5, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8],
  3: [8, 10, 12, 12, 12, 12, 12, 12, 15, 16, 16, 17, 17, 18, 18, 18, 18],
  4: [16, 16, 21, 24, 24, 24, 24, 24, 24, 32, 35, 35, 35, 35, 36, 39, 39],
};
const PICT: Record<number, number[]> = {
  2: [5, 6, 7, 7, 8, 8, 8, 8, 8, 9, 9, 10, 10, 10, 10, 10, 11],
  3: [12, 12, 12, 15, 17, 17, 19, 19, 20, 21, 23, 23, 23, 24, 26, 25, 25],
  4: [16, 16, 27, 30, 34, 40, 41, 46, 49, 55, 52, 59, 59, 61, 63, 66, 68],
};
const MIXED: Case[] = [
  { name: '3^1 2^9', t: 3, sizes: [3, ...Array(9).fill(2)], lowerBound: 18, pict: 23, covertable: '18' },
  { name: '3^2 2^8', t: 3, sizes: [3, 3, ...Array(8).fill(2)], lowerBound: 18, pict: 31, covertable: '24' },
  { name: '4^1 3^2 2^12', t: 3, sizes: [4, 3, 3, ...Array(12).fill(2)], lowerBound: 36, pict: 48, covertable: '37-39' },
  { name: '3^1 2^9', t: 2, sizes: [3, ...Array(9).fill(2)], lowerBound: 6, pict: 10, covertable: '8' },
];

function space(sizes: number[]): FactorSpace {
  return { names: sizes.map((_, i) => `f${i}`), levels: sizes.map((n) => Array.from({ length: n }, (_, v) => `${v}`)) };
}

function runCase(c: Case, steps: number) {
  const started = performance.now();
  const ca = buildCoveringArray(space(c.sizes), { strength: c.t, shrinkSteps: steps });
  return { rows: ca.rows.length, constructed: ca.constructedRows, seconds: (performance.now() - started) / 1000 };
}

if (process.env.FAULTLINE_BENCH_CASE) {
  // A child process running one case (--jobs > 1).
  const { c, steps } = JSON.parse(process.env.FAULTLINE_BENCH_CASE) as { c: Case; steps: number };
  process.send?.(runCase(c, steps));
} else {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const steps = Number(arg('steps') ?? 20_000);
  const jobs = Number(arg('jobs') ?? 1);
  const strengths = (arg('t') ?? '2,3,4').split(',').map(Number);
  const cases: Case[] = [];
  for (const t of strengths)
    for (let k = Math.max(4, t); k <= 20; k++)
      cases.push({ name: `2^${k}`, t, sizes: Array(k).fill(2), best: BEST[t][k - 4], pict: PICT[t][k - 4] });
  cases.push(...MIXED.filter((m) => strengths.includes(m.t)));

  const results = new Array<ReturnType<typeof runCase>>(cases.length);
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      results[i] =
        jobs <= 1
          ? runCase(cases[i], steps)
          : await new Promise((resolve, reject) => {
              const child = fork(fileURLToPath(import.meta.url), [], {
                execArgv: process.execArgv, // the same loader (tsx) as this process
                env: { ...process.env, FAULTLINE_BENCH_CASE: JSON.stringify({ c: cases[i], steps }) },
              });
              child.once('message', (m) => resolve(m as ReturnType<typeof runCase>));
              child.once('error', reject);
            });
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, availableParallelism(), cases.length) || 1 }, worker));

  const rows = [['t', 'model', 'best known', 'faultline', 'ratio', 'IPOG only', 'PICT default', 'vs PICT', 'seconds']];
  cases.forEach((c, i) => {
    const r = results[i];
    const anchor = c.best ?? c.lowerBound ?? NaN;
    rows.push([
      String(c.t),
      c.name,
      c.best !== undefined ? String(c.best) : `≥${c.lowerBound} (covertable+SA ${c.covertable})`,
      String(r.rows),
      (r.rows / anchor).toFixed(2),
      String(r.constructed),
      String(c.pict ?? ''),
      c.pict ? (r.rows / c.pict).toFixed(2) : '',
      r.seconds.toFixed(1),
    ]);
  });
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
  console.log(`covering-array bench: ${steps} local-search steps per array; ratio = faultline / best known (mixed: / lower bound)`);
  for (const r of rows) console.log(r.map((c, j) => c.padStart(widths[j])).join('  '));
  const binary = cases.map((c, i) => ({ c, r: results[i] })).filter(({ c }) => c.best !== undefined);
  const atBest = binary.filter(({ c, r }) => r.rows === c.best).length;
  console.log(`binary cases at the best-known size: ${atBest}/${binary.length}; total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

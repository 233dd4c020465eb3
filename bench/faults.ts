/**
 * Reliability bench: no orphan servers, no lost or repeated cells under signals, and no uncaught
 * exception on hostile input.
 *
 *   faults  real `faultline matrix` runs (dist/, real engine servers) interrupted at random points
 *           by SIGINT, SIGTERM, SIGHUP, SIGKILL and SIGKILL of faultline and its reaper, each then
 *           resumed; anchored on an uninterrupted run of the same plan in this bench run
 *           (bench/faults/matrix-faults.ts)
 *   fuzz    mutated real inputs to every parser probe and report read (bench/faults/fuzz.ts)
 *
 * Ends with the two summary lines:
 *   faults: N runs, O orphans, L lost cells, T cells run twice
 *   fuzz: N inputs, U uncaught
 * Usage: npm run build && node --import tsx bench/faults.ts [--runs 20] [--fuzz 10000] [--seed 1] [--only faults|fuzz]
 * Exit 1 when any count is not 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../src/core/rng.js';
import { runFuzz } from './faults/fuzz.js';
import { anchorRun, faultRun, INTERRUPTS, type FaultRun } from './faults/matrix-faults.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const runs = Number(arg('runs', '20'));
const fuzzPerParser = Number(arg('fuzz', '10000'));
const seed = Number(arg('seed', '1'));
const only = arg('only', 'all');
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

async function faults(): Promise<{ runs: number; orphans: number; lost: number; twice: number }> {
  if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) throw new Error('run `npm run build` first: the bench runs dist/');
  const work = mkdtempSync(join(tmpdir(), 'faultline-faults-'));
  try {
    const anchor = await anchorRun(join(work, 'anchor'));
    console.log(`anchor: uninterrupted run, ${anchor.keys.length} cells, exit ${anchor.verdictCode}, ${(anchor.ms / 1000).toFixed(1)} s (load ${load()})`);
    const rng = createRng(seed);
    const results: FaultRun[] = [];
    // two runs at a time: each is mostly waiting on its servers
    const plans = Array.from({ length: runs }, (_, i) => ({ i, interrupt: INTERRUPTS[i % INTERRUPTS.length] }));
    const worker = async (): Promise<void> => {
      for (let next = plans.shift(); next; next = plans.shift()) {
        const r = await faultRun(join(work, `run-${next.i}`), next.interrupt, rng, anchor);
        results.push(r);
        console.log(
          `run ${String(next.i + 1).padStart(2)}: ${next.interrupt.padEnd(14)} at ${(r.atMs / 1000).toFixed(1).padStart(5)} s → exit ${r.exit.padEnd(7)}` +
            ` left after it ${r.orphansAfterInterrupt}, stopped by --resume ${r.survivorsStoppedByResume}, ${r.restarted ? 'restarted' : 'resumed'} → exit ${r.resumeCode};` +
            ` orphans ${r.orphans}, lost ${r.lost}, twice ${r.twice} (load ${load()})`,
        );
      }
    };
    await Promise.all([worker(), worker()]);
    const sum = (f: (r: FaultRun) => number) => results.reduce((n, r) => n + f(r), 0);
    return { runs: results.length, orphans: sum((r) => r.orphans), lost: sum((r) => r.lost), twice: sum((r) => r.twice) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let failed = false;
const lines: string[] = [];
if (only === 'all' || only === 'faults') {
  const f = await faults();
  failed ||= f.orphans + f.lost + f.twice > 0;
  lines.push(`faults: ${f.runs} runs, ${f.orphans} orphans, ${f.lost} lost cells, ${f.twice} cells run twice`);
}
if (only === 'all' || only === 'fuzz') {
  const z = await runFuzz(fuzzPerParser, seed, (line) => console.log(`${line} (load ${load()})`));
  failed ||= z.uncaught > 0;
  lines.push(`fuzz: ${z.inputs} inputs, ${z.uncaught} uncaught`);
}
console.log(lines.join('\n'));
process.exitCode = failed ? 1 : 0;

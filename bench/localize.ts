/**
 * Localization accuracy and cost, simulated with the fake executor (issue 7 acceptance):
 * hidden random faults of size t ≤ 3 among k ≤ 20 binary factors, 10% chance that a probe of a
 * corrupt server says PASS, the full `runMatrix` pipeline (maximal configurations, strength-3
 * covering array, localization, verification) with the default confirmation (2 re-probes).
 *
 * "exact" = the run reports exactly one verified interaction and it equals the hidden fault.
 * Anchors measured in the same run: exhaustive testing (2^k launches) and one-factor-at-a-time
 * (k+1 launches: reference + each factor alone), whose exact rate is simulated the same way.
 *
 * Two fault shapes: "on" — every assignment is a non-reference level (feature flags switched on,
 * the serving case); "any" — random levels, some equal to the reference (exercises the context
 * check). Usage: node --import tsx bench/localize.ts [--trials N] [--miss 0.1] [--confirm 2]
 */
import { createRng } from '../src/core/rng.js';
import { buildCoveringArray, type CoveringArray } from '../src/matrix/covering.js';
import { buildAttribution } from '../src/matrix/attribution.js';
import { createFakeWorld } from '../src/matrix/fake-executor.js';
import { parsePlan } from '../src/matrix/plan-load.js';
import { runMatrix } from '../src/matrix/run.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const trials = arg('trials', 100);
const miss = arg('miss', 0.1);
const confirm = arg('confirm', 2);

function binaryPlan(k: number) {
  const factors = Array.from({ length: k }, (_, i) => `  f${i}: { levels: { "0": {}, "1": { argv: [--f${i}] } } }`).join('\n');
  return parsePlan('bench.yaml', `launch: { argv: [srv, --port, "{port}"] }\nfactors:\n${factors}\nstrength: 3\nconfirm: ${confirm}\n`);
}

const memo = new Map<string, CoveringArray>();
const memoizedCovering: typeof buildCoveringArray = (space, options) => {
  const key = JSON.stringify([space.names.length, options.strength, options.seedRows]);
  let ca = memo.get(key);
  if (!ca) memo.set(key, (ca = buildCoveringArray(space, options)));
  return ca;
};

function randomFault(rng: ReturnType<typeof createRng>, k: number, t: number, shape: 'on' | 'any'): Record<string, string> {
  while (true) {
    const factors = new Set<number>();
    while (factors.size < t) factors.add(rng.int(k));
    const fault = Object.fromEntries([...factors].sort((a, b) => a - b).map((f) => [`f${f}`, shape === 'on' ? '1' : String(rng.int(2))]));
    if (Object.values(fault).includes('1')) return fault; // an all-reference fault would corrupt the reference itself
  }
}

async function oneFactorAtATime(k: number, fault: Record<string, string>, seed: number): Promise<boolean> {
  const world = createFakeWorld({ faults: [fault], missRate: miss, seed });
  const found: string[] = [];
  for (let f = 0; f < k; f++) {
    const levels = Object.fromEntries(Array.from({ length: k }, (_, g) => [`f${g}`, g === f ? '1' : '0']));
    const launched = await world.executor.launch({ cellId: `o${f}`, config: [], levels, argv: [], env: {}, slot: 0 }, new AbortController().signal);
    if (!launched.ok) continue;
    let corrupt = false;
    for (let round = 0; round <= confirm && !corrupt; round++)
      corrupt = (await world.probe.probeCell(launched.server.baseUrl, { cellId: `o${f}`, round, reference: null, options: {}, signal: new AbortController().signal })).outcome === 'corrupt';
    await launched.server.stop();
    if (corrupt) found.push(`f${f}`);
  }
  return found.length === 1 && JSON.stringify({ [found[0]]: '1' }) === JSON.stringify(fault);
}

const rows: string[][] = [['k', 't', 'shape', 'trials', 'exact %', 'launches mean', 'max', 'exhaustive 2^k', 'ratio', 'OFAT k+1', 'OFAT exact %']];
let allTrials = 0;
let allExact = 0;
const started = performance.now();
for (const k of [4, 8, 12, 16, 20]) {
  const plan = binaryPlan(k);
  for (const t of [1, 2, 3]) {
    for (const shape of ['on', 'any'] as const) {
      const rng = createRng(1000 * k + 10 * t + (shape === 'on' ? 0 : 1));
      let exact = 0;
      let ofatExact = 0;
      let launches = 0;
      let maxLaunches = 0;
      for (let trial = 0; trial < trials; trial++) {
        const fault = randomFault(rng, k, t, shape);
        const seed = rng.int(1 << 30);
        const world = createFakeWorld({ faults: [fault], missRate: miss, seed });
        const run = await runMatrix({ plan, executor: world.executor, probe: world.probe, coveringArray: memoizedCovering });
        const report = buildAttribution(run);
        const verified = report.interactions.filter((i) => i.status === 'verified');
        if (verified.length === 1 && JSON.stringify(verified[0].interaction) === JSON.stringify(fault)) exact++;
        launches += report.launches.used;
        maxLaunches = Math.max(maxLaunches, report.launches.used);
        if (await oneFactorAtATime(k, fault, seed)) ofatExact++;
      }
      allTrials += trials;
      allExact += exact;
      const mean = launches / trials;
      rows.push([
        String(k), String(t), shape, String(trials), ((100 * exact) / trials).toFixed(1), mean.toFixed(1), String(maxLaunches),
        String(2 ** k), `${(mean / 2 ** k).toExponential(1)}`, String(k + 1), ((100 * ofatExact) / trials).toFixed(1),
      ]);
    }
  }
}
const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
console.log(`localization bench: ${trials} trials per row, miss rate ${miss}, confirm ${confirm} (PASS believed after ${confirm + 1} PASS probes)`);
for (const r of rows) console.log(r.map((c, j) => c.padStart(widths[j])).join('  '));
console.log(`overall exact localization: ${((100 * allExact) / allTrials).toFixed(2)}% of ${allTrials} (target ≥ 99%) in ${((performance.now() - started) / 1000).toFixed(0)} s`);

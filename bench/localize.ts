/**
 * Localization under noise: faultline's whole matrix run against two baselines measured in the
 * same run, on the same hidden faults with the same noise.
 *
 * World: k binary factors (reference level 0), one hidden fault of size t ≤ 3, and a miss rate:
 * each probe round of a corrupt server says PASS with that probability (the one-sided noise of
 * silent-corruption probes); a clean server always passes. Two fault shapes: "on" — every
 * assignment is level 1 (feature flags switched on, the serving case; the most-enabled launch
 * fails); "any" — random levels, some at the reference (the most-enabled launch may pass, and
 * naming the fault needs the reference levels too).
 *
 * - faultline: runMatrix on the fake executor (plan: strength 3, confirm auto, miss_rate = the
 *   simulated rate, coverage.after_found stop), exactly what `faultline matrix` does.
 * - binary splitting (the baseline of research note §2.3): launch the most-enabled configuration;
 *   if it passes, the same covering array faultline would run, row by row, until one fails; then
 *   FIC_BS-style binary splitting over that row's non-reference levels (keep a prefix, reference
 *   elsewhere; the shortest failing prefix's last factor is part of the fault; repeat until the
 *   factors found fail alone). One probe per launch, every verdict believed, a configuration
 *   launched once.
 * - exhaustive under noise: every one of the 2^k configurations launched and probed once; the
 *   answer is what all observed failures share (a factor's level where every failing launch
 *   agrees). Its noise is drawn directly (same rate, one draw per launch), not through the fake
 *   executor: 2^20 launches per trial would take the bench hours.
 *
 * "exact": the answer equals the hidden fault (faultline: exactly one verified interaction).
 * Launches count the reference launch for faultline and for binary splitting alike (both need a
 * reference to judge outputs). Probe rounds say what confirmation cost (requests, not launches).
 *
 * Usage: node --import tsx bench/localize.ts [--trials 200] [--miss 0.1] [--k 4,8,12,16,20]
 * The last line is the headline: k=20 t=3, "on" faults.
 */
import { loadavg } from 'node:os';
import { createRng, type Rng } from '../src/core/rng.js';
import { buildAttribution } from '../src/matrix/attribution.js';
import { buildCoveringArray, type CoveringArray } from '../src/matrix/covering.js';
import { createFakeWorld, type FakeWorld } from '../src/matrix/fake-executor.js';
import { parsePlan } from '../src/matrix/plan-load.js';
import { runMatrix } from '../src/matrix/run.js';
import { numberArg } from './args.js';

const trials = numberArg('trials', 200);
const miss = numberArg('miss', 0.1);
const ks = (process.argv.includes('--k') ? process.argv[process.argv.indexOf('--k') + 1] : '4,8,12,16,20').split(',').map(Number);
const EXHAUSTIVE_MAX_K = 20;

function binaryPlan(k: number) {
  const factors = Array.from({ length: k }, (_, i) => `  f${i}: { levels: { "0": {}, "1": { argv: [--f${i}] } } }`).join('\n');
  return parsePlan(
    'bench.yaml',
    `launch: { argv: [srv, --port, "{port}"] }\nfactors:\n${factors}\nstrength: 3\nconfirm: auto\nmiss_rate: ${miss}\n`,
  );
}

const memo = new Map<string, CoveringArray>();
const memoizedCovering: typeof buildCoveringArray = (space, options) => {
  const key = `${space.names.length}|${options.strength}|${options.neededKey ?? ''}`;
  let ca = memo.get(key);
  if (!ca) memo.set(key, (ca = buildCoveringArray(space, options)));
  return ca;
};

type Fault = Record<string, string>;

function randomFault(rng: Rng, k: number, t: number, shape: 'on' | 'any'): Fault {
  while (true) {
    const factors = new Set<number>();
    while (factors.size < t) factors.add(rng.int(k));
    const fault = Object.fromEntries([...factors].sort((a, b) => a - b).map((f) => [`f${f}`, shape === 'on' ? '1' : String(rng.int(2))]));
    if (Object.values(fault).includes('1')) return fault; // an all-reference fault would corrupt the reference itself
  }
}

const same = (a: Fault, b: Fault) => JSON.stringify(a) === JSON.stringify(b);

async function faultline(k: number, fault: Fault, seed: number) {
  const world = createFakeWorld({ faults: [fault], missRate: miss, seed });
  const run = await runMatrix({ plan: binaryPlan(k), executor: world.executor, probe: world.probe, coveringArray: memoizedCovering });
  const report = buildAttribution(run);
  const verified = report.interactions.filter((i) => i.status === 'verified');
  return {
    exact: verified.length === 1 && same(verified[0].interaction, fault),
    launches: report.launches.used,
    probeRounds: report.cells.reduce((n, c) => n + c.probeRounds, 0),
  };
}

/** The baseline: most-enabled launch (else covering rows), then binary splitting, single-shot. */
async function binarySplitting(k: number, fault: Fault, seed: number, covering: number[][]) {
  const world: FakeWorld = createFakeWorld({ faults: [fault], missRate: miss, seed });
  const seen = new Map<string, boolean>();
  const fails = async (config: number[]): Promise<boolean> => {
    const key = config.join('');
    const known = seen.get(key);
    if (known !== undefined) return known;
    const levels = Object.fromEntries(config.map((v, f) => [`f${f}`, String(v)]));
    const signal = new AbortController().signal;
    const launched = await world.executor.launch({ cellId: key, config, levels, argv: [], env: {}, slot: 0 }, signal);
    if (!launched.ok) throw new Error('the bench world has no launch failures');
    const probe = await world.probe.probeCell(launched.server.baseUrl, { cellId: key, round: 0, reference: null, options: {}, signal });
    await launched.server.stop();
    seen.set(key, probe.outcome === 'corrupt');
    return probe.outcome === 'corrupt';
  };
  let failing: number[] | undefined = Array(k).fill(1);
  if (!(await fails(failing))) {
    failing = undefined;
    for (const row of covering) if (await fails(row)) {
      failing = row;
      break;
    }
  }
  const launches = () => seen.size + 1; // + the reference
  if (!failing) return { exact: false, launches: launches() };
  const keep = (factors: number[]) => Array.from({ length: k }, (_, f) => (factors.includes(f) ? (failing as number[])[f] : 0));
  const fixed: number[] = [];
  let rest = failing.flatMap((v, f) => (v !== 0 ? [f] : []));
  while (rest.length > 0 && !(fixed.length > 0 && (await fails(keep(fixed))))) {
    let lo = 0; // keep(fixed ∪ rest[0..lo)) passes
    let hi = rest.length; // keep(fixed ∪ rest[0..hi)) fails
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (await fails(keep([...fixed, ...rest.slice(0, mid)]))) hi = mid;
      else lo = mid;
    }
    fixed.push(rest[hi - 1]);
    rest = rest.slice(0, hi - 1);
  }
  const answer = Object.fromEntries([...fixed].sort((a, b) => a - b).map((f) => [`f${f}`, String(failing[f])]));
  return { exact: same(answer, fault), launches: launches() };
}

/** Every configuration once, single-shot; the answer is what every observed failure shares. */
function exhaustive(k: number, fault: Fault, rng: Rng): boolean {
  const mask = Object.keys(fault).reduce((m, f) => m | (1 << Number(f.slice(1))), 0);
  const value = Object.entries(fault).reduce((m, [f, v]) => m | (Number(v) << Number(f.slice(1))), 0);
  let allOnes = (1 << k) - 1; // bits where every observed failure is 1
  let allZeros = (1 << k) - 1; // bits where every observed failure is 0
  let observed = 0;
  for (let c = 0; c < 1 << k; c++) {
    if ((c & mask) !== value || rng.next() < miss) continue;
    observed++;
    allOnes &= c;
    allZeros &= ~c;
  }
  if (observed === 0) return false;
  const answer = Object.fromEntries(
    Array.from({ length: k }, (_, f) => f).flatMap((f) => ((allOnes >> f) & 1 ? [[`f${f}`, '1']] : (allZeros >> f) & 1 ? [[`f${f}`, '0']] : [])),
  );
  return same(answer, fault);
}

const header = ['k', 't', 'shape', 'faultline exact %', 'launches mean', 'max', 'probe rounds', 'binary-split exact %', 'launches mean', 'max', 'ratio', 'exhaustive exact %', '2^k'];
const rows: string[][] = [header];
let headline = '';
const started = performance.now();
for (const k of ks) {
  const plan = binaryPlan(k);
  // the covering array a run builds once the reference and the most-enabled launch passed: the baseline's fallback rows
  const covering = memoizedCovering(plan.space, {
    strength: plan.strength,
    constraints: plan.constraints,
    seedRows: [plan.baseline, Array(k).fill(1)],
    preferredLevels: plan.baseline,
    seed: plan.seed,
    shrinkWork: plan.coverage.shrinkWork,
  }).rows;
  for (const t of [1, 2, 3].filter((x) => x <= k)) {
    for (const shape of ['on', 'any'] as const) {
      const rng = createRng(1000 * k + 10 * t + (shape === 'on' ? 0 : 1));
      const fl = { exact: 0, launches: 0, max: 0, rounds: 0 };
      const bs = { exact: 0, launches: 0, max: 0 };
      let exhaustiveExact = 0;
      const exhaustiveTrials = k <= EXHAUSTIVE_MAX_K ? Math.min(trials, k >= 16 ? 20 : trials) : 0;
      for (let trial = 0; trial < trials; trial++) {
        const fault = randomFault(rng, k, t, shape);
        const seed = rng.int(1 << 30);
        const a = await faultline(k, fault, seed);
        fl.exact += Number(a.exact);
        fl.launches += a.launches;
        fl.max = Math.max(fl.max, a.launches);
        fl.rounds += a.probeRounds;
        const b = await binarySplitting(k, fault, seed, covering);
        bs.exact += Number(b.exact);
        bs.launches += b.launches;
        bs.max = Math.max(bs.max, b.launches);
        if (trial < exhaustiveTrials) exhaustiveExact += Number(exhaustive(k, fault, createRng(seed)));
      }
      const pct = (n: number, of: number) => (of ? ((100 * n) / of).toFixed(1) : '—');
      const ratio = fl.launches / bs.launches;
      rows.push([
        String(k), String(t), shape,
        pct(fl.exact, trials), (fl.launches / trials).toFixed(1), String(fl.max), (fl.rounds / trials).toFixed(1),
        pct(bs.exact, trials), (bs.launches / trials).toFixed(1), String(bs.max), ratio.toFixed(2),
        `${pct(exhaustiveExact, exhaustiveTrials)} (${exhaustiveTrials})`, String(2 ** k),
      ]);
      if (k === 20 && t === 3 && shape === 'on')
        headline = `localize: k=20 t=3 miss=${miss}: exact ${pct(fl.exact, trials)}%, mean ${(fl.launches / trials).toFixed(1)} launches, baseline ${(bs.launches / trials).toFixed(1)}, ratio ${ratio.toFixed(2)}`;
    }
  }
}
const widths = header.map((_, j) => Math.max(...rows.map((r) => r[j].length)));
console.log(
  `localization bench: ${trials} trials per row, miss rate ${miss}; launches include the reference; exhaustive: trials in brackets; ` +
    `load ${loadavg().map((x) => x.toFixed(1)).join(' ')} (other work on the machine slows the bench, not the counts)`,
);
for (const r of rows) console.log(r.map((c, j) => c.padStart(widths[j])).join('  '));
console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
if (headline) console.log(headline);

/**
 * The workload suite against the engine's stateful fault models and benign configurations.
 *
 *  detection  per fault model: `probe --suite workload` (must be CORRUPT and name the feature) and
 *             `probe --suite window-crossing` on the same server (must not be CORRUPT: the faults
 *             need traffic that independent window-crossing prompts never make), then the saved
 *             trace replayed on a freshly started pair (the same requests corrupt?).
 *  benign     ≥ 20 workload probes of configurations that change numerics or state but not the
 *             model's output: prefix caching with preemption (a 40-block budget) and chunked
 *             prefill; + batch-variant numerics; an FP8 KV cache (sm100-fixed path) against a bf16
 *             reference. A CORRUPT verdict is a false alarm.
 *  shapes     servers that answer as real ones do (prefix caching with preemption, as above):
 *             streaming 1, 4 and all tokens per event, stopping early (`--serve-quirk
 *             stop-at-token=ID`: ignore_eos dropped, a frequent token ends the generation) and
 *             omitting the KV capacity from /metrics. Each benign one must read CLEAN under
 *             `--suite workload,window-crossing`; each with the stale prefix-cache fault CORRUPT under
 *             the workload suite, and each with the canonical window fault CORRUPT under the
 *             window-crossing suite.
 *
 * Every probe gets freshly started servers, so no cache state carries over between probes. The
 * servers run the CLI as built (run `npm run build` first). The load average is printed beside
 * each figure: other engineers share the machine.
 *
 *   node --import tsx bench/workload.ts [--benign 20] [--from 0] [--rounds 4] [--skip-detection]
 *                                       [--only detection|benign|shapes]
 * (--from: the first benign seed, so that a sweep can be split across processes)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { STATE_FAULT_NAMES } from '../src/engine/state-faults.js';
import type { WorkloadReport } from '../src/probe/workload/report.js';
import { startServer, type ServerProcess } from '../test/e2e/server-harness.js';
import { cliCommand, repoRoot } from '../test/helpers/cli.js';
import { numberArg } from './args.js';

const run = promisify(execFile);
const MODEL = ['--model', 'models/tiny-swa', '--max-model-len', '512'];
const STATEFUL = ['--enable-prefix-caching', '--num-gpu-blocks-override', '40', '--max-num-batched-tokens', '128'];
const load = () => loadavg()[0].toFixed(2);
const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-workload-'));

async function pair<T>(target: string[], reference: string[], body: (t: ServerProcess, r: ServerProcess) => Promise<T>): Promise<T> {
  const [t, r] = await Promise.all([startServer([...MODEL, ...target], 60_000), startServer([...MODEL, ...reference], 60_000)]);
  try {
    return await body(t, r);
  } finally {
    await Promise.all([t.stop(), r.stop()]);
  }
}

async function probe(t: ServerProcess, r: ServerProcess, args: string[]): Promise<{ code: number; out: string }> {
  const [program, ...pre] = cliCommand();
  try {
    const { stdout } = await run(program, [...pre, 'probe', '--target', t.url, '--reference', r.url, '--window', '128', ...args], { cwd: repoRoot, maxBuffer: 1 << 28 });
    return { code: 0, out: stdout };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    if (typeof x.code !== 'number' || x.code === 2) throw new Error(`probe failed: ${x.stderr ?? String(e)}`, { cause: e });
    return { code: x.code, out: x.stdout ?? '' };
  }
}

const corruptIds = (r: WorkloadReport) => r.requests.filter((q) => q.outcome === 'corrupt').map((q) => q.id);

async function detection(rounds: number): Promise<boolean> {
  let ok = true;
  for (const fault of STATE_FAULT_NAMES) {
    const target = [...STATEFUL, '--stateful-fault-model', fault];
    const trace = join(dir, `${fault}.trace.json`);
    const first = join(dir, `${fault}.json`);
    const again = join(dir, `${fault}.replay.json`);
    const t0 = Date.now();
    await pair(target, [], (t, r) => probe(t, r, ['--suite', 'workload', '--rounds', String(rounds), '--max-tokens', '16', '--save-trace', trace, '--out', first, '--format', 'json']));
    const report = JSON.parse(readFileSync(first, 'utf8')) as WorkloadReport;
    const ms = Date.now() - t0;
    const wc = await pair(target, [], (t, r) => probe(t, r, ['--suite', 'window-crossing', '--requests', '16', '--max-tokens', '32', '--format', 'json']));
    const wcVerdict = (JSON.parse(wc.out) as { verdict: string }).verdict;
    await pair(target, [], (t, r) => probe(t, r, ['--replay', trace, '--out', again, '--format', 'json']));
    const replayed = JSON.parse(readFileSync(again, 'utf8')) as WorkloadReport;
    const same = JSON.stringify(corruptIds(report)) === JSON.stringify(corruptIds(replayed));
    console.log(
      `${fault}: workload ${report.verdict} in ${report.settings.rounds} round(s), ${ms} ms, shared by the corrupt: ${report.sharedByCorrupt.join(', ') || '(none)'}; ` +
        `window-crossing ${wcVerdict}; replay ${replayed.verdict}, corrupt requests ${same ? 'identical' : 'DIFFER'} (${corruptIds(report).join(' ')} | ${corruptIds(replayed).join(' ')}) · load ${load()}`,
    );
    ok &&= report.verdict === 'CORRUPT' && wcVerdict !== 'CORRUPT' && replayed.verdict === 'CORRUPT';
  }
  return ok;
}

const BENIGN: { name: string; target: string[]; reference: string[] }[] = [
  { name: 'prefix caching + preemption + chunked prefill', target: STATEFUL, reference: [] },
  { name: '… + batch-variant numerics', target: [...STATEFUL, '--batch-variant-numerics'], reference: [] },
  { name: 'FP8 KV (sm100-fixed) vs bf16 KV, prefix caching + preemption', target: [...STATEFUL, '--kv-cache-dtype', 'fp8_e4m3', '--emulate', 'sm100-fixed'], reference: ['--kv-cache-dtype', 'bfloat16'] },
  { name: 'prefix caching, room to spare, vs prefix caching off', target: ['--enable-prefix-caching'], reference: [] },
];

async function benign(from: number, n: number, rounds: number): Promise<number> {
  let alarms = 0;
  const verdicts = new Map<string, number>();
  for (let i = from; i < from + n; i++) {
    const c = BENIGN[i % BENIGN.length];
    const out = join(dir, `benign-${i}.json`);
    await pair(c.target, c.reference, (t, r) => probe(t, r, ['--suite', 'workload', '--rounds', String(rounds), '--max-tokens', '16', '--seed', String(i), '--out', out, '--format', 'json']));
    const r = JSON.parse(readFileSync(out, 'utf8')) as WorkloadReport;
    verdicts.set(r.verdict, (verdicts.get(r.verdict) ?? 0) + 1);
    if (r.verdict === 'CORRUPT') alarms++;
    console.log(`benign ${i} (${c.name}, seed ${i}): ${r.verdict}, ${r.counts.judged} judged, ${r.counts.corrupt} corrupt request(s), ${r.counts['benign-drift']} benign drift, ${r.counts.failed + r.counts['cut-off']} failed/cut off · load ${load()}`);
  }
  console.log(`benign: ${alarms}/${n} false alarms; verdicts ${[...verdicts].map(([v, k]) => `${v} ${k}`).join(', ')} · load ${load()}`);
  return alarms;
}

/** Token 46 is "." in the tiny-swa byte tokenizer (POST /tokenize): a server that stops at every sentence end. */
const STOP_EARLY = ['--serve-quirk', 'stop-at-token=46'];
const WINDOW_FAULT = ['--emulate', 'sm100-affected', '--kv-cache-dtype', 'fp8_e4m3', '--attention-config', '{"disable_flashinfer_q_quantization": true}', '--speculative-config', '{"method":"mtp","num_speculative_tokens":7}'];
const SHAPES: { name: string; flags: string[] }[] = [
  { name: '1 token per event', flags: ['--stream-interval', '1'] },
  { name: '4 tokens per event', flags: ['--stream-interval', '4'] },
  { name: 'the whole completion in one event', flags: ['--stream-interval', '0'] },
  { name: 'stops early (ignore_eos dropped, "." ends)', flags: STOP_EARLY },
  { name: 'no KV capacity on /metrics', flags: ['--serve-quirk', 'no-kv-capacity'] },
];

const verdictOf = (out: string) => (JSON.parse(out) as { verdict: string }).verdict;

async function shapes(rounds: number): Promise<boolean> {
  let ok = true;
  for (const shape of SHAPES) {
    const t0 = Date.now();
    const benignRun = await pair([...STATEFUL, ...shape.flags], [], (t, r) => probe(t, r, ['--suite', 'workload,window-crossing', '--rounds', String(rounds), '--requests', '40', '--max-tokens', '16', '--format', 'json']));
    const benign = JSON.parse(benignRun.out) as { verdict: string; suites: { suite: string; verdict: string }[] };
    const stale = await pair([...STATEFUL, ...shape.flags, '--stateful-fault-model', 'stale-prefix-hash'], [], (t, r) => probe(t, r, ['--suite', 'workload', '--rounds', String(Math.max(rounds, 6)), '--max-tokens', '16', '--format', 'json']));
    const window = await pair([...STATEFUL, ...shape.flags, ...WINDOW_FAULT], [], (t, r) => probe(t, r, ['--suite', 'window-crossing', '--requests', '16', '--max-tokens', '64', '--format', 'json']));
    const line = { benign: benign.verdict, stale: verdictOf(stale.out), window: verdictOf(window.out) };
    const good = line.benign === 'CLEAN' && line.stale === 'CORRUPT' && line.window === 'CORRUPT';
    ok &&= good;
    console.log(
      `shape ${shape.name}: benign ${line.benign} (${benign.suites.map((x) => `${x.suite} ${x.verdict}`).join(', ')}); stale prefix ${line.stale} (workload); window fault ${line.window} (window-crossing)` +
        ` ${good ? 'ok' : 'WRONG'} · ${((Date.now() - t0) / 1000).toFixed(0)} s · load ${load()}`,
    );
  }
  return ok;
}

try {
  const rounds = numberArg('rounds', 4);
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
  if (only !== undefined && !['detection', 'benign', 'shapes'].includes(only)) throw new Error(`--only ${only}: detection, benign or shapes`);
  const runs = (part: string) => only === undefined || only === part;
  const skipped = process.argv.includes('--skip-detection') || !runs('detection');
  const detected = skipped || (await detection(rounds));
  const alarms = runs('benign') ? await benign(numberArg('from', 0), numberArg('benign', 20), rounds) : 0;
  const shaped = runs('shapes') ? await shapes(rounds) : true;
  const models = skipped
    ? 'not run (--skip-detection)'
    : detected
      ? 'all found CORRUPT by workload only, replays identical or CORRUPT'
      : 'NOT all found';
  const shapesLine = runs('shapes') ? `; server shapes ${shaped ? 'each benign CLEAN, each corrupt CORRUPT' : 'NOT all as expected'}` : '';
  console.log(`workload: fault models ${models}; false alarms ${runs('benign') ? alarms : 'not run'}${shapesLine}`);
  process.exitCode = detected && alarms === 0 && shaped ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

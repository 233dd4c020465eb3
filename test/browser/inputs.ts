/**
 * Real inputs for the report's browser test, made by faultline itself:
 *  - lint: `faultline lint` on examples/seed-b200 (the CLI);
 *  - kernel: `faultline kernel vectors` → `run-engine` (the trtllm-gen fault model) → `verify --json` (the CLI);
 *  - probe: `faultline probe --format json` (the CLI) against two in-process fake OpenAI-compatible
 *    servers (src/probe/testing) whose byte n-gram model was trained on prose that carries a
 *    marker; the candidate corrupts tokens past the window. A small proxy gives the servers a
 *    tokenizer in which the marker byte is one token spelling an XSS payload, so the model's
 *    detokenized output contains `<script>…` the way a BPE model's can;
 *  - matrix, real: test/fixtures/report/seed-b200-run, a `faultline matrix` run of the seed-b200 plan
 *    against faultline's engine (12 minutes, so it is recorded once, not rerun here; see its README);
 *  - matrix, simulated: a run made by the library (runMatrix + the journal) on the seed-shaped plan
 *    with the fake executor (src/matrix/fake-executor.ts), which hides the canonical interaction, so
 *    the report's localization sections have something to show; the report replays it from the journal;
 *  - a 500-launch attribution report built from a real factor space and a hidden fault rule, for
 *    the size and render-time limits (no run that large exists).
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createRng } from '../../src/core/rng.js';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { createFakeWorld } from '../../src/matrix/fake-executor.js';
import { Journal } from '../../src/matrix/journal.js';
import { loadPlanFile } from '../../src/matrix/plan-load.js';
import { runMatrix } from '../../src/matrix/run.js';
import { startFakeServer } from '../../src/probe/testing/fake-server.js';
import { trainByteNgram } from '../../src/probe/testing/ngram-lm.js';
import { repoRoot, runCli } from '../helpers/cli.js';

export const XSS = '<script>alert(1)</script><img src=x onerror=alert(1)>';
/** A byte the prose never contains: the proxy's tokenizer spells it as XSS. */
const MARKER = '|';

/** Runs the CLI in `cwd` (paths in the report are then short and relative, as a user's would be). */
async function cli(args: string[], out?: string, cwd = repoRoot, exitCode = 0): Promise<string> {
  const r = await runCli(args, { timeoutMs: 180_000, cwd });
  if (r.code !== exitCode) throw new Error(`faultline ${args.join(' ')} exited ${r.code}, expected ${exitCode}: ${r.stderr}`);
  if (out) {
    JSON.parse(r.stdout); // the JSON a report reads, whole
    writeFileSync(out, r.stdout);
  }
  return r.stdout;
}

export async function makeLintJson(dir: string): Promise<string> {
  const out = join(dir, 'lint.json');
  await cli(['lint', 'examples/seed-b200/serve.sh', '--model-config', 'examples/seed-b200/config.json', '--gpu', 'NVIDIA B200', '--format', 'json'], out, repoRoot, 1);
  return out;
}

export async function makeKernelJson(dir: string): Promise<string> {
  const vectors = 'kernel-vectors';
  await cli(['kernel', 'vectors', '--out', vectors], undefined, dir);
  await cli(['kernel', 'run-engine', vectors, '--fault-model', 'trtllm-gen-swa-specdec'], undefined, dir);
  const out = join(dir, 'kernel.json');
  await cli(['kernel', 'verify', vectors, '--json'], out, dir, 1);
  return out;
}

/** Forwards to `upstream`; /detokenize answers spell MARKER as XSS. */
async function tokenizerProxy(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const r = await fetch(upstream + (req.url ?? '/'), { method: req.method, headers: { 'content-type': 'application/json' }, body: req.method === 'GET' ? undefined : body });
    let text = await r.text();
    if (req.url?.startsWith('/detokenize') && r.ok) {
      const j = JSON.parse(text) as { prompt: string };
      text = JSON.stringify({ prompt: j.prompt.split(MARKER).join(XSS) });
    }
    res.writeHead(r.status, { 'content-type': 'application/json' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function makeProbeJson(dir: string): Promise<string> {
  const prose = readFileSync(join(repoRoot, 'test/fixtures/probe/prose-sample.txt'), 'utf8');
  const corpus = prose
    .split(/(?<=\. )/)
    .slice(0, 80)
    .map((s) => `${s.trim()} ${MARKER} `)
    .join('');
  const corpusFile = join(dir, 'probe-corpus.txt');
  writeFileSync(corpusFile, corpus);
  const lm = trainByteNgram(corpus, 12);
  const reference = await startFakeServer({ lm });
  const candidate = await startFakeServer({ lm, corruption: { afterPosition: 48, rate: 0.08, boost: 20, seed: 3 } });
  const [rp, cp] = [await tokenizerProxy(reference.url), await tokenizerProxy(candidate.url)];
  try {
    const out = join(dir, 'probe.json');
    await cli(
      ['probe', '--target', cp.url, '--reference', rp.url, '--window', '48', '--page-size', '16', '--requests', '16', '--max-tokens', '96', '--no-early-stop', '--prompt-text', corpusFile, '--format', 'json'],
      out,
      repoRoot,
      1,
    );
    return out;
  } finally {
    await Promise.all([rp.close(), cp.close(), reference.close(), candidate.close()]);
  }
}

export const KERNEL_DEFECT = { fp8_kv: 'on', spec_k: '7', q_quant: 'disabled' };

export function copySeedRun(dir: string): string {
  const runDir = join(dir, 'seed-b200-run');
  cpSync(join(repoRoot, 'test/fixtures/report/seed-b200-run'), runDir, { recursive: true });
  return runDir;
}

export async function makeMatrixRun(dir: string): Promise<string> {
  const runDir = join(dir, 'simulated-matrix-run');
  copyFileSync(join(repoRoot, 'test/fixtures/matrix/seed-like.yaml'), join(dir, 'seed-like.yaml'));
  const plan = loadPlanFile(join(dir, 'seed-like.yaml'));
  // recorded as a user would have typed it in `dir`: the report finds it next to the run directory
  const journal = Journal.create(runDir, { type: 'run', version: 1, planFile: 'seed-like.yaml', planHash: plan.hash, faultline: 'test', startedAt: new Date().toISOString() });
  const world = createFakeWorld({ faults: [KERNEL_DEFECT], launchFailures: [{ block_size: '32', batch_invariant: 'on' }] });
  try {
    await runMatrix({ plan, executor: world.executor, probe: world.probe, journal });
  } finally {
    journal.close();
  }
  return runDir;
}

/** An attribution report with `launches` cells over a 9-factor space; corrupt where the hidden rule holds. */
export function makeLargeAttribution(dir: string, launches = 500): string {
  const factors = [
    { name: 'fp8_kv', levels: ['off', 'on'] },
    { name: 'spec', levels: ['off', 'ngram', 'mtp', 'suffix'] },
    { name: 'spec_k', levels: ['na', '3', '5', '7'] },
    { name: 'q_quant', levels: ['enabled', 'disabled'] },
    { name: 'eager', levels: ['off', 'on'] },
    { name: 'prefix_cache', levels: ['off', 'on'] },
    { name: 'block_size', levels: ['16', '32', '64'] },
    { name: 'batch_invariant', levels: ['off', 'on'] },
    { name: 'chunked_prefill', levels: ['on', 'off'] },
  ].map((f) => ({ ...f, reference: f.levels[0] }));
  const rng = createRng(7);
  const cells: AttributionReport['cells'] = [];
  for (let i = 0; i < launches; i++) {
    const levels = Object.fromEntries(factors.map((f) => [f.name, f.levels[rng.int(f.levels.length)]]));
    const corrupt = levels.fp8_kv === 'on' && levels.q_quant === 'disabled' && levels.spec_k === '7';
    const failed = levels.block_size === '64' && levels.batch_invariant === 'on';
    cells.push({
      id: `c${String(i + 1).padStart(3, '0')}`,
      phase: i < 2 ? 'maximal' : i < 440 ? 'covering' : i < 490 ? 'localize' : 'verify',
      levels,
      outcome: failed ? 'launch-failed' : corrupt ? 'corrupt' : 'pass',
      ...(failed ? {} : { corruptRate: corrupt ? 0.25 + 0.5 * rng.next() : 0 }),
      probeRounds: failed ? 0 : corrupt ? 1 : 3,
    });
  }
  const report: AttributionReport = {
    verdict: 'corruption-found',
    plan: { file: 'large-plan.yaml', hash: 'synthetic', strength: 3, confirm: 2 },
    factors,
    cells,
    interactions: [
      {
        status: 'verified',
        source: cells.find((c) => c.outcome === 'corrupt')!.id,
        method: 'leave-one-out',
        interaction: { fp8_kv: 'on', spec_k: '7', q_quant: 'disabled' },
        forced: { spec: 'mtp' },
        minimalCell: 'c490',
        remedies: [{ change: { fp8_kv: 'off' }, cell: 'c491', outcome: 'pass' }],
      },
    ],
    notInvolved: [],
    explained: {},
    unexamined: [],
    launchFailures: [{ levels: { block_size: '64', batch_invariant: 'on' }, cells: cells.filter((c) => c.outcome === 'launch-failed').map((c) => c.id) }],
    launches: { used: launches, thisRun: launches, reusedFromJournal: 0, reference: 1, coveringRows: 438, exhaustive: 6144, oneFactorAtATime: 16 },
    coverage: { strength: 3, validTuples: 0, uncoveredByVerdicts: 0 },
  };
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'large-attribution.json');
  writeFileSync(out, JSON.stringify(report));
  return out;
}

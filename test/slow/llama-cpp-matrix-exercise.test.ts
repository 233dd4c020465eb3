/**
 * Every level of examples/llama-cpp/matrix.yaml changes what llama.cpp does for the probe's own
 * requests, shown by what the runtime reports: each level is launched as the plan launches it
 * (the plan's argv and env, read from the file), sent exactly the requests a probe round sends
 * (the plan's probe settings and prompt text), and its /metrics, start-up log and log-probabilities
 * are compared with the reference launch's. A level the requests never reach fails here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlanFile } from '../../src/matrix/plan-load.js';
import { probeConfig, withDefaults } from '../../src/matrix/probe-cell.js';
import { recordGolden } from '../../src/probe/record.js';
import type { Recording } from '../../src/probe/recording.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const planFile = join(root, 'examples/llama-cpp/matrix.yaml');
const plan = loadPlanFile(planFile);

interface Launched {
  metrics: Map<string, number>;
  log: string;
  recording: Recording;
}

/** The launches: the reference (every factor's first level) and the levels named here over it. */
const LAUNCHES: Record<string, Record<string, string>> = {
  reference: {},
  k_q8_0: { cache_type_k: 'q8_0' },
  v_q8_0: { cache_type_v: 'q8_0', flash_attn: 'on' },
  flash_on: { flash_attn: 'on' },
  swa_full: { swa_full: 'on' },
  parallel_4: { parallel: '4' },
  batch_16: { batch_size: '16' },
  cache_prompt: { cache_prompt: 'on', swa_full: 'on' },
  draft: { draft: 'q8_0' },
  prompt_lookup: { prompt_lookup: 'ngram' },
  k_q8_0_no_rotation: { cache_type_k: 'q8_0', kv_rotation: 'off' },
};

const results = new Map<string, Launched>();
let dir: string;

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

function argvFor(
  levels: Record<string, string>,
  port: number,
  cellDir: string,
): { argv: string[]; env: Record<string, string> } {
  const fill = (w: string) =>
    w.replace('{faultline_root}', root).replace('{cell_dir}', cellDir).replace('{port}', String(port));
  const argv = plan.launch.argv.map(fill);
  const env: Record<string, string> = { ...plan.launch.env };
  plan.space.names.forEach((factor, f) => {
    const level = plan.space.levels[f].indexOf(levels[factor] ?? plan.space.levels[f][plan.baseline[f]]);
    assert.ok(level >= 0, `${factor} has a level ${levels[factor]}`);
    const fragment = plan.fragments[f][level];
    argv.push(...fragment.argv.map(fill));
    Object.assign(env, fragment.env);
  });
  return { argv, env };
}

async function launchAndProbe(name: string, levels: Record<string, string>): Promise<Launched> {
  const port = await freePort();
  const cellDir = join(dir, name);
  const { argv, env } = argvFor(levels, port, cellDir);
  const child: ChildProcess = spawn(argv[0], argv.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  try {
    // the plan's ready timeout, doubled: this test starts its launches two at a time on a loaded machine
    const deadline = Date.now() + 2 * plan.launch.readyTimeoutMs;
    while (
      !(await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      assert.ok(
        child.exitCode === null && child.signalCode === null,
        `${name} exited (${child.exitCode ?? child.signalCode}) before it was ready: ${log.slice(-800)}`,
      );
      assert.ok(
        Date.now() < deadline,
        `${name} was not ready in ${(2 * plan.launch.readyTimeoutMs) / 1000} s: ${log.slice(-800)}`,
      );
      await new Promise((r) => setTimeout(r, 500));
    }
    const o = withDefaults(plan.probe);
    const corpus = readFileSync(resolve(dirname(planFile), o.prompt_text!), 'utf8');
    const rec = await recordGolden(probeConfig(url, o, corpus, o.seed));
    assert.equal(rec.failed, 0, `${name}: ${rec.errors.join('; ')}`);
    const text = await (await fetch(`${url}/metrics`)).text();
    return { metrics: parseMetrics(text), log, recording: rec.recording };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}

/** "name{labels} value" lines → name (labels but model_name kept) → value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line.trim());
    if (!m) continue;
    const labels = (m[2] ?? '').replace(/model_name="[^"]*",?/, '').replace('{}', '');
    out.set(m[1] + labels, Number(m[3]));
  }
  return out;
}

const metric = (l: Launched, name: string): number => {
  for (const [k, v] of l.metrics) if (k === name || k.startsWith(`${name}{`)) return v;
  assert.fail(`no ${name} in /metrics`);
};
const configLabel = (l: Launched, label: string): string => {
  for (const k of l.metrics.keys()) {
    const m = new RegExp(`^faultline:llama_cpp_config_info\\{.*${label}="([^"]*)"`).exec(k);
    if (m) return m[1];
  }
  assert.fail('no faultline:llama_cpp_config_info in /metrics');
};

/** Largest |Δ logprob| of the chosen tokens over the steps both recordings share a prefix on. */
function maxLogprobDelta(a: Recording, b: Recording): number {
  let worst = 0;
  a.exchanges.forEach((x, i) => {
    const y = b.exchanges[i];
    const sa = x.steps ?? [];
    const sb = y?.steps ?? [];
    for (let s = 0; s < Math.min(sa.length, sb.length); s++) {
      if (sa[s].token !== sb[s].token) break;
      worst = Math.max(worst, Math.abs(sa[s].logprob - sb[s].logprob));
    }
  });
  return worst;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-exercise-'));
  const names = Object.keys(LAUNCHES);
  // two launches at a time, as the plan's executor runs cells
  for (let i = 0; i < names.length; i += 2)
    await Promise.all(
      names.slice(i, i + 2).map(async (n) => results.set(n, await launchAndProbe(n, LAUNCHES[n]))),
    );
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (name: string): Launched => results.get(name)!;

test('K and V cache types: the runtime reports q8_0, and the numbers move off the F16 reference', (t) => {
  for (const [name, label] of [
    ['k_q8_0', 'cache_type_k'],
    ['v_q8_0', 'cache_type_v'],
  ] as const) {
    assert.equal(configLabel(get('reference'), label), 'f16');
    assert.equal(configLabel(get(name), label), 'q8_0');
    const d = maxLogprobDelta(get('reference').recording, get(name).recording);
    t.diagnostic(`${name}: max |Δ logprob| on shared tokens ${d.toExponential(2)}`);
    assert.ok(d > 0, `${name} changes the log-probabilities`);
  }
});

test('flash attention: off in the reference, on at its level, and the arithmetic differs', (t) => {
  assert.equal(configLabel(get('reference'), 'flash_attn'), 'off');
  assert.equal(configLabel(get('flash_on'), 'flash_attn'), 'on');
  const d = maxLogprobDelta(get('reference').recording, get('flash_on').recording);
  t.diagnostic(`flash on: max |Δ logprob| ${d.toExponential(2)}`);
  assert.ok(d > 0);
});

test('parallel sequences: the probe puts several sequences in one batch at parallel 4, one at parallel 1', (t) => {
  const one = metric(get('reference'), 'faultline:llama_cpp_batch_sequences_max');
  const four = metric(get('parallel_4'), 'faultline:llama_cpp_batch_sequences_max');
  t.diagnostic(`sequences per batch at most: ${four} at parallel 4, ${one} at parallel 1 (the reference)`);
  assert.ok(four > 1, `${four} > 1`);
  assert.equal(one, 1);
});

test('batch size 16: the same requests take more llama_decode batches', (t) => {
  const ref = metric(get('reference'), 'faultline:llama_cpp_batches_total');
  const small = metric(get('batch_16'), 'faultline:llama_cpp_batches_total');
  t.diagnostic(`batches: ${ref} at the default, ${small} at 16`);
  assert.equal(configLabel(get('batch_16'), 'n_batch'), '16');
  assert.ok(small > ref, `${small} > ${ref}`);
});

test('prefix reuse: with a full sliding-window cache the probe reuses cached prefixes, with cache-prompt off none', (t) => {
  const on = get('cache_prompt');
  const off = get('swa_full');
  const requests = on.recording.exchanges.length;
  const hitsOn = metric(on, 'vllm:prefix_cache_hits_total');
  const hitsOff = metric(off, 'vllm:prefix_cache_hits_total');
  t.diagnostic(`prefix tokens reused: ${hitsOn} (cache-prompt on, ${requests} requests) vs ${hitsOff} (off)`);
  assert.equal(configLabel(off, 'swa_full'), 'true');
  assert.equal(hitsOff, 0);
  // more than a first token per request: real prefixes were reused
  assert.ok(hitsOn > requests, `${hitsOn} > ${requests}`);
});

test('draft speculation: the draft drafts and its tokens are accepted', (t) => {
  const drafted = metric(get('draft'), 'vllm:spec_decode_num_draft_tokens_total');
  const accepted = metric(get('draft'), 'vllm:spec_decode_num_accepted_tokens_total');
  t.diagnostic(`draft tokens ${drafted}, accepted ${accepted}`);
  assert.ok(accepted > 0 && drafted >= accepted);
  assert.equal(metric(get('reference'), 'vllm:spec_decode_num_draft_tokens_total'), 0);
});

test('prompt lookup: n-grams of the output found in the prompt draft tokens, and some are accepted', (t) => {
  const drafted = metric(get('prompt_lookup'), 'vllm:spec_decode_num_draft_tokens_total');
  const accepted = metric(get('prompt_lookup'), 'vllm:spec_decode_num_accepted_tokens_total');
  t.diagnostic(`prompt-lookup draft tokens ${drafted}, accepted ${accepted}`);
  assert.ok(accepted > 0 && drafted > accepted, 'drafts made, some accepted, some refuted');
  assert.match(get('prompt_lookup').log, /prompt lookup \(n-gram 4, ≤ 16 tokens\)/);
});

test('quantized-KV rotation off: llama.cpp names the switch, and the q8_0 numbers change', (t) => {
  assert.match(get('k_q8_0_no_rotation').log, /LLAMA_ATTN_ROT_DISABLE/);
  assert.doesNotMatch(get('k_q8_0').log, /LLAMA_ATTN_ROT_DISABLE/);
  const d = maxLogprobDelta(get('k_q8_0').recording, get('k_q8_0_no_rotation').recording);
  t.diagnostic(`rotation off vs on at q8_0 K: max |Δ logprob| ${d.toExponential(2)}`);
  assert.ok(d > 0);
});

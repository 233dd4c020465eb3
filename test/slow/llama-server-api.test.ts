/**
 * The probe against `engine serve --api llama-server` (llama.cpp's native POST /completion with
 * n_probs, GET /props, no vLLM extensions on its OpenAI routes): the probe finds the shape by itself
 * (GET /props), generates through /completion, and reads the same verdicts as on the vLLM-shaped
 * API of the same engine configuration: the scale defect on the short suite, CORRUPT, and a clean
 * server without a corrupt or failed request. llama-server has no prompt scoring, so it is the target; the reference is vLLM-shaped.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';
import { AFFECTED_FP8_BF16Q, BF16_REFERENCE } from '../helpers/canonical-launch.js';

const MODEL = ['--model', 'models/tiny-swa-qscale', '--max-model-len', '320'];
const SCALE_DEFECT = AFFECTED_FP8_BF16Q;
const REFERENCE = BF16_REFERENCE;

async function probe(target: ServerProcess, reference: ServerProcess, requests: number) {
  const args = [
    'probe',
    '--target',
    target.url,
    '--reference',
    reference.url,
    '--model-config',
    'models/tiny-swa-qscale',
    '--suite',
    'short',
    '--requests',
    String(requests),
    '--max-tokens',
    '12',
    '--concurrency',
    '2',
    '--format',
    'json',
  ];
  const r = await runCli(args, { timeoutMs: 240_000 });
  assert.notEqual(r.stdout, '', r.stderr);
  return {
    code: r.code,
    summary: JSON.parse(r.stdout) as {
      verdict: string;
      counts: { corrupt: number; failed: number };
      capabilities: { target: { api: string; checks: { name: string; support: string }[] } };
    },
    stderr: r.stderr,
  };
}

describe('probe: a llama-server-shaped target', { timeout: 600_000 }, () => {
  const s: Record<string, ServerProcess> = {};
  before(async () => {
    const [ref, candL, cleanL] = await Promise.all([
      startServer([...MODEL, ...REFERENCE], 60_000),
      startServer([...MODEL, ...SCALE_DEFECT, '--api', 'llama-server'], 60_000),
      startServer([...MODEL, ...REFERENCE, '--api', 'llama-server'], 60_000),
    ]);
    Object.assign(s, { ref, candL, cleanL });
  });
  after(async () => {
    await Promise.all(Object.values(s).map((x) => x.stop()));
  });

  test("/completion with n_probs answers in llama-server's shape; /props says what it is", async () => {
    const props = await fetch(`${s.cleanL.url}/props`);
    assert.equal(props.status, 200);
    assert.equal((await fetch(`${s.ref.url}/props`)).status, 404);
    const res = await fetch(`${s.cleanL.url}/completion`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        prompt: [1, 84, 104, 101],
        n_predict: 3,
        n_probs: 2,
        temperature: 0,
        ignore_eos: true,
        return_tokens: true,
      }),
    });
    const j = (await res.json()) as {
      tokens: number[];
      stop_type: string;
      completion_probabilities: { id: number; logprob: number; top_logprobs: { id: number }[] }[];
    };
    assert.equal(j.tokens.length, 3);
    assert.equal(j.stop_type, 'limit');
    assert.deepEqual(
      j.completion_probabilities.map((p) => p.id),
      j.tokens,
    );
    assert.ok(j.completion_probabilities.every((p) => p.top_logprobs.length === 2 && p.logprob <= 0));
  });

  test('the scale defect reads CORRUPT through /completion, the clean server has no corrupt request; the capability report names the route', async () => {
    const bad = await probe(s.candL, s.ref, 8);
    assert.equal(bad.summary.verdict, 'CORRUPT', bad.stderr);
    assert.equal(bad.code, 1);
    assert.equal(bad.summary.counts.failed, 0);
    assert.equal(bad.summary.capabilities.target.api, 'llama-server');
    // 8 requests are too few for a CLEAN verdict (the sequential test needs 29): none corrupt, none failed
    const clean = await probe(s.cleanL, s.ref, 8);
    assert.equal(clean.summary.counts.corrupt, 0, clean.stderr);
    assert.equal(clean.summary.counts.failed, 0);
    assert.notEqual(clean.summary.verdict, 'CORRUPT');
  });

  test('the workload suite refuses a llama-server target before the trace, with what to run instead', async () => {
    const r = await runCli([
      'probe',
      '--suite',
      'workload',
      '--target',
      s.cleanL.url,
      '--reference',
      s.ref.url,
    ]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /is a llama-server/);
    assert.match(r.stderr, /--suite window-crossing/);
  });
});

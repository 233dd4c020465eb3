/**
 * The probe against `engine serve --api sglang` (SGLang's API shape: /generate,
 * /model_info, /health_generate, no vLLM extensions on the OpenAI routes) gives the same verdicts as
 * against the vLLM-shaped API on the same engine configuration. The probe finds the SGLang shape by
 * itself (GET /model_info) and then generates and scores through /generate. Kept small: the scale
 * defect on the short suite (every request corrupt). The matrix counterpart is test/slow/sglang-matrix.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';
import { AFFECTED_FP8_BF16Q, BF16_REFERENCE } from '../helpers/canonical-launch.js';

const MODEL = ['--model', 'models/tiny-swa-qscale', '--max-model-len', '320'];
const SCALE_DEFECT = AFFECTED_FP8_BF16Q;
const REFERENCE = BF16_REFERENCE;

interface ProbeSummary {
  verdict: string;
  counts: { judged: number; corrupt: number; failed: number };
  corruptPositions: { count: number; withinWindow: number; pastWindow: number };
}

async function probe(
  target: ServerProcess,
  reference: ServerProcess,
): Promise<{ code: number | null; summary: ProbeSummary }> {
  const r = await runCli(
    [
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
      '8',
      '--max-tokens',
      '12',
      '--concurrency',
      '2',
      '--format',
      'json',
    ],
    { timeoutMs: 240_000 },
  );
  assert.notEqual(r.stdout, '', r.stderr);
  return { code: r.code, summary: JSON.parse(r.stdout) as ProbeSummary };
}

describe('probe: the SGLang-shaped server reads as the vLLM-shaped one', { timeout: 600_000 }, () => {
  const servers: Record<string, ServerProcess> = {};
  before(async () => {
    const [refV, refS, candV, candS] = await Promise.all([
      startServer([...MODEL, ...REFERENCE], 60_000),
      startServer([...MODEL, ...REFERENCE, '--api', 'sglang'], 60_000),
      startServer([...MODEL, ...SCALE_DEFECT], 60_000),
      startServer([...MODEL, ...SCALE_DEFECT, '--api', 'sglang'], 60_000),
    ]);
    Object.assign(servers, { refV, refS, candV, candS });
  });
  after(async () => {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  });

  test('the SGLang shape answers /generate and /model_info; the vLLM shape does not', async () => {
    const info = await fetch(`${servers.candS.url}/model_info`);
    assert.equal(info.status, 200);
    assert.equal(((await info.json()) as { is_generation: boolean }).is_generation, true);
    assert.equal((await fetch(`${servers.candV.url}/model_info`)).status, 404);
    assert.equal((await fetch(`${servers.candS.url}/health_generate`)).status, 200);
  });

  test('scale defect: CORRUPT through both APIs, with the same counts and positions', async () => {
    const [v, s] = await Promise.all([
      probe(servers.candV, servers.refV),
      probe(servers.candS, servers.refS),
    ]);
    assert.equal(v.summary.verdict, 'CORRUPT');
    assert.equal(s.summary.verdict, v.summary.verdict);
    assert.equal(s.code, v.code);
    assert.deepEqual(s.summary.counts, v.summary.counts);
    assert.deepEqual(s.summary.corruptPositions, v.summary.corruptPositions);
    assert.equal(s.summary.counts.failed, 0, 'no request failed on the SGLang API');
  });

  test('mixed: an SGLang-shaped target against a vLLM-shaped reference reads the same', async () => {
    const m = await probe(servers.candS, servers.refV);
    const v = await probe(servers.candV, servers.refV);
    assert.equal(m.summary.verdict, v.summary.verdict);
    assert.deepEqual(m.summary.counts, v.summary.counts);
  });
});

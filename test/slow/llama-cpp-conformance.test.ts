/**
 * Conformance across implementations: models/tiny-swa exported as a gemma3 GGUF and run by llama.cpp
 * (v0.4.0 through node-llama-cpp 3.21.1, F32 weights, F32 KV cache, flash attention off) against
 * (a) the PyTorch golden logits and (b) the faultline runtime (float32, float32 KV), both through
 * the same server routes. Greedy tokens must be identical; the golden top-1 must hold at every
 * position; log-probabilities must agree within LOGPROB_TOLERANCE.
 *
 * Why a tolerance at all, and why this one: ggml's CPU GELU goes through an FP16 lookup table
 * (GGML_GELU_FP16 in ggml-cpu/vec.h) while PyTorch and faultline compute tanh-GELU in float32/64, and
 * ggml sums in float32 in another order. Measured on the development machine (ggml's zen4 CPU
 * variant): 4.0e-3 nats at most over the golden top-1 of 786 positions, 2.0e-3 over 600 generated
 * tokens against the faultline runtime (research llama-cpp-engine.md §4.4 saw 4.5–7.9e-3 over the
 * golden top-5). 2e-2 leaves room for another of ggml's CPU variants while still catching a wrong
 * norm, RoPE base or window (each of those moves logprobs by tenths of a nat or flips tokens).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { presetSettings } from '../../src/engine/emulate.js';
import { loadModel } from '../../src/engine/load-model.js';
import { logSoftmax } from '../../src/engine/sampling.js';
import { exportGemma3 } from '../../src/gguf/gemma3-export.js';
import { serializeGguf } from '../../src/gguf/writer.js';
import { buildLlamaCppServer, type BuiltLlamaCppServer } from '../../src/llama-cpp/build-server.js';
import { DEFAULT_OPTIONS } from '../../src/llama-cpp/options.js';
import { buildServer, type BuiltServer } from '../../src/server/build.js';
import { readSafetensors } from '../../src/tensors/safetensors.js';
import { toFloat32 } from '../../src/tensors/tensor.js';
import { repoRoot } from '../helpers/cli.js';

const MODEL = join(repoRoot, 'models/tiny-swa');
const LOGPROB_TOLERANCE = 2e-2;
/** The model card's greedy-sample prompts (models/tiny-swa/README.md). */
const CARD_PROMPTS = [
  'Call me Ishmael.',
  'Fellow-Citizens of the Senate and House of Representatives:',
  'The whale',
];

const model = loadModel(MODEL);
let dir: string;
let llama: BuiltLlamaCppServer;
let faultline: BuiltServer;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
async function complete(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  body: object,
): Promise<Json> {
  const res = await app.request('/v1/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Json;
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-conformance-'));
  const gguf = exportGemma3(model, 'tiny-swa', 'f32');
  const file = join(dir, 'tiny-swa-f32.gguf');
  writeFileSync(file, serializeGguf(gguf.metadata, gguf.tensors));
  llama = await buildLlamaCppServer(
    {
      model: file,
      alias: 'tiny',
      maxLogprobs: 20,
      options: { ...DEFAULT_OPTIONS, parallel: 1, flashAttn: 'off', cacheTypeK: 'f32', cacheTypeV: 'f32' },
    },
    'tiny',
  );
  faultline = buildServer({
    model,
    modelId: 'tiny',
    settings: {
      attention: presetSettings('reference'),
      precision: 'fp32',
      kvDtype: 'fp32',
      pageSize: 16,
      maxModelLen: 2048,
    },
    spec: null,
    maxNumSeqs: 4,
    engineThreads: 1,
  });
});

after(async () => {
  await llama?.runner.shutdown(1000);
  await faultline?.runner.shutdown(1000);
  rmSync(dir, { recursive: true, force: true });
});

test('llama.cpp holds the golden top-1 at every position of the golden prompts, logprobs within the tolerance', async (t) => {
  const golden = readSafetensors(join(MODEL, 'golden.safetensors')).tensors;
  const V = model.config.vocabSize;
  let positions = 0;
  let worst = 0;
  for (let n = 0; golden.has(`prompt_${n}`); n++) {
    const ids = Array.from(toFloat32(golden.get(`prompt_${n}`)!));
    const logits = toFloat32(golden.get(`logits_${n}`)!);
    const r = await complete(llama.app, {
      prompt: ids,
      max_tokens: 1,
      temperature: 0,
      prompt_logprobs: 1,
      logprobs: 1,
      return_token_ids: true,
    });
    const c = r.choices[0];
    // the row after position p scores prompt position p + 1; the last row chose the generated token
    const rank1 = (entry: Record<string, { logprob: number; rank: number }>) =>
      Object.entries(entry).find(([, v]) => v.rank === 1)!;
    const llamaTop1 = (p: number): [number, number] => {
      if (p + 1 < ids.length) {
        const [id, v] = rank1(c.prompt_logprobs[p + 1]);
        return [Number(id), v.logprob];
      }
      return [c.token_ids[0], c.logprobs.token_logprobs[0]];
    };
    for (let p = 0; p < ids.length; p++) {
      const lp = logSoftmax(logits.subarray(p * V, (p + 1) * V));
      const want = lp.indexOf(Math.max(...lp));
      const [id, logprob] = llamaTop1(p);
      assert.equal(id, want, `prompt ${n} position ${p}: llama.cpp's top-1 ${id}, golden ${want}`);
      worst = Math.max(worst, Math.abs(logprob - lp[want]));
      positions++;
    }
  }
  t.diagnostic(
    `${positions} positions; golden top-1 everywhere; max |Δ logprob| of the top-1 against golden ${worst.toExponential(2)} (tolerance ${LOGPROB_TOLERANCE})`,
  );
  assert.ok(positions > 700, `only ${positions} golden positions`);
  assert.ok(worst <= LOGPROB_TOLERANCE, `max |Δ logprob| ${worst} > ${LOGPROB_TOLERANCE}`);
});

test('llama.cpp and the faultline runtime give identical greedy tokens over 200-token generations, logprobs within the tolerance', async (t) => {
  let worst = 0;
  for (const prompt of CARD_PROMPTS) {
    const body = {
      prompt,
      max_tokens: 200,
      temperature: 0,
      logprobs: 2,
      ignore_eos: true,
      return_token_ids: true,
    };
    const [a, b] = [await complete(llama.app, body), await complete(faultline.app, body)];
    const [ca, cb] = [a.choices[0], b.choices[0]];
    assert.equal(ca.logprobs.tokens.length, 200);
    assert.deepEqual(
      ca.token_ids,
      cb.token_ids,
      `"${prompt}": llama.cpp «${ca.text}» vs faultline «${cb.text}»`,
    );
    for (let i = 0; i < 200; i++)
      worst = Math.max(worst, Math.abs(ca.logprobs.token_logprobs[i] - cb.logprobs.token_logprobs[i]));
  }
  t.diagnostic(
    `3 × 200 tokens identical; max |Δ logprob| of the chosen tokens ${worst.toExponential(2)} (tolerance ${LOGPROB_TOLERANCE})`,
  );
  assert.ok(worst <= LOGPROB_TOLERANCE, `max |Δ logprob| ${worst} > ${LOGPROB_TOLERANCE}`);
});

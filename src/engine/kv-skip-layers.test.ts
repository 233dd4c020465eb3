/**
 * --kv-cache-dtype-skip-layers, as vLLM implements it: a skipped layer (an index, or every
 * sliding-window layer for "sliding_window") keeps an unquantized cache while the others stay FP8.
 * In the sm100-affected emulation the remedy candidate of hazard FL001 then removes the fault
 * model's trigger on the sliding layers — what a real kernel does is for `kernel verify` on SM100.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokensFromArgv } from '../deployment/argv-token.js';
import { parseVllmArgs } from '../deployment/vllm-args.js';
import { isUserError } from '../core/errors.js';
import { createRng } from '../core/rng.js';
import { trtllmGenSwaSpecdec } from './attention/fault-models.js';
import { createFlashinferBackend } from './attention/flashinfer.js';
import { Engine } from './engine.js';
import { ENGINE_FLAG_SPECS, resolveEngineSettings } from './flags.js';
import { layerDtype } from './kv-cache/cache.js';
import { randomModel, tinyConfig } from './testing/random-init.js';

const config = tinyConfig({ declaresFp8KvCache: true });
const sliding = config.layerTypes.flatMap((t, l) => (t === 'sliding' ? [l] : []));

function settings(argv: string[]) {
  const parsed = parseVllmArgs(tokensFromArgv(argv), { baseDir: '.', extraFlags: ENGINE_FLAG_SPECS });
  return resolveEngineSettings(parsed.args, config, new Set());
}

test('the flag: sliding_window means every sliding layer, indices are layers, anything else is refused', () => {
  assert.ok(
    sliding.length > 0 && sliding.length < config.numLayers,
    'the tiny config mixes sliding and full layers',
  );
  assert.deepEqual(
    settings(['--kv-cache-dtype', 'fp8', '--kv-cache-dtype-skip-layers', 'sliding_window']).kvSkipLayers,
    sliding,
  );
  assert.deepEqual(
    settings(['--kv-cache-dtype', 'fp8', '--kv-cache-dtype-skip-layers', '0', '2']).kvSkipLayers,
    [0, 2],
  );
  assert.deepEqual(settings(['--kv-cache-dtype', 'fp8']).kvSkipLayers, []);
  const bf16 = settings(['--kv-cache-dtype', 'bfloat16', '--kv-cache-dtype-skip-layers', 'sliding_window']);
  assert.ok(bf16.notes.some((n) => /has no effect/.test(n)));
  assert.throws(
    () => settings(['--kv-cache-dtype-skip-layers', 'attention']),
    (e) => isUserError(e) && /neither a layer index nor sliding_window/.test(e.message),
  );
  assert.throws(
    () => settings(['--kv-cache-dtype-skip-layers', String(config.numLayers)]),
    (e) => isUserError(e),
  );
});

const model = randomModel(config, { seed: 5, std: 0.08 });
const rng = createRng(7);
const prompt = Array.from({ length: 45 }, () => rng.int(256)); // past the tiny window (16)

/** Logits of 16 spec-as-decode steps of 1 + 7 rows, FP8 KV, Q quantization disabled. */
function run(preset: 'sm100-affected' | 'sm100-fixed', kvSkipLayers: number[]) {
  const e = new Engine(model, {
    precision: 'bf16',
    kvDtype: 'fp8_e4m3',
    kvSkipLayers,
    pageSize: 16,
    cacheKind: 'paged',
    numSpeculativeTokens: 7,
    backend: createFlashinferBackend({
      bookkeeping: preset === 'sm100-affected' ? 'vllm-affected' : 'fixed',
      faultModel: preset === 'sm100-affected' ? trtllmGenSwaSpecdec : null,
      disableQQuantization: true,
      useTrtllmAttention: null,
    }),
  });
  const rows: number[] = [];
  e.forward([{ seqId: 0, tokens: prompt }]);
  for (let step = 0; step < 16; step++) {
    const toks = Array.from({ length: 8 }, (_, i) => (step * 13 + i * 7) % 256);
    rows.push(...e.forward([{ seqId: 0, tokens: toks }])[0].logits);
  }
  return { rows, dtypes: Array.from({ length: config.numLayers }, (_, l) => layerDtype(e.cache.spec, l)) };
}

test('skipped layers store BF16, the rest FP8', () => {
  const { dtypes } = run('sm100-fixed', sliding);
  assert.deepEqual(
    dtypes,
    config.layerTypes.map((t) => (t === 'sliding' ? 'bf16' : 'fp8_e4m3')),
  );
});

test('emulated: with the sliding layers unquantized the affected engine equals the fixed one; without, it does not', () => {
  assert.notDeepEqual(
    run('sm100-affected', []).rows,
    run('sm100-fixed', []).rows,
    'the fault fires with every layer FP8',
  );
  assert.deepEqual(run('sm100-affected', sliding).rows, run('sm100-fixed', sliding).rows);
});

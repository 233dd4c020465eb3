import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokensFromArgv } from '../deployment/argv-token.js';
import { parseVllmArgs } from '../deployment/vllm-args.js';
import { isUserError } from '../core/errors.js';
import { ENGINE_FLAG_SPECS, resolveEngineSettings } from './flags.js';
import { tinyConfig } from './testing/random-init.js';

const own = new Set(['prompt']);
function resolve(argv: string[], declaresFp8 = true) {
  const parsed = parseVllmArgs(tokensFromArgv(argv), { baseDir: '.', extraFlags: [...ENGINE_FLAG_SPECS, { dest: 'prompt', kind: 'string' }] });
  return resolveEngineSettings(parsed.args, tinyConfig({ declaresFp8KvCache: declaresFp8 }), own);
}

test('presets: reference by default; sm100-affected = FlashInfer + vllm-affected + the fault model', () => {
  const r = resolve([]);
  assert.equal(r.emulation, 'reference');
  assert.equal(r.attention.backend, 'REFERENCE');
  const a = resolve(['--emulate', 'sm100-affected']);
  assert.deepEqual([a.attention.backend, a.attention.bookkeeping, a.attention.faultModel?.name], ['FLASHINFER', 'vllm-affected', 'trtllm-gen-swa-specdec']);
  const f = resolve(['--emulate', 'sm100-fixed']);
  assert.deepEqual([f.attention.backend, f.attention.bookkeeping, f.attention.faultModel], ['FLASHINFER', 'fixed', null]);
});

test('an explicit backend overrides the preset; another backend than the preset runs as fixed', () => {
  assert.equal(resolve(['--emulate', 'sm100-affected', '--attention-backend', 'reference']).attention.backend, 'REFERENCE');
  const fi = resolve(['--attention-backend', 'FLASHINFER']).attention;
  assert.deepEqual([fi.backend, fi.bookkeeping, fi.faultModel], ['FLASHINFER', 'fixed', null]);
  assert.equal(resolve(['--attention-config', '{"backend":"FLASHINFER"}']).attention.backend, 'FLASHINFER');
  assert.equal(resolve(['--emulate', 'sm100-affected', '--attention-backend', 'auto']).attention.bookkeeping, 'vllm-affected');
});

test('attention_config booleans accept pydantic spellings; dotted keys work', () => {
  assert.equal(resolve(['--attention-config.disable_flashinfer_q_quantization=true']).attention.disableQQuantization, true);
  assert.equal(resolve(['-ac.use_trtllm_attention', '0']).attention.useTrtllmAttention, false);
  assert.equal(resolve(['--attention-config', '{"use_trtllm_attention": 1}']).attention.useTrtllmAttention, true);
  assert.throws(() => resolve(['--attention-config.use_trtllm_attention=maybe']), (e) => isUserError(e) && /true or false|is not a boolean/.test(e.message));
});

test('kv cache dtype: auto follows the checkpoint, else the model dtype; explicit names map to the cache dtypes', () => {
  assert.equal(resolve([]).kvDtype, 'fp8_e4m3');
  assert.equal(resolve([], false).kvDtype, 'bf16');
  assert.equal(resolve(['--dtype', 'float32'], false).kvDtype, 'fp32');
  assert.equal(resolve(['--dtype', 'float32'], false).precision, 'fp32');
  assert.equal(resolve(['--kv-cache-dtype', 'bfloat16']).kvDtype, 'bf16');
  assert.equal(resolve(['--kv-cache-dtype', 'fp8'], false).kvDtype, 'fp8_e4m3');
});

test('block size, max model len, seed; accepted-without-effect flags leave a note; others are refused', () => {
  const s = resolve(['--block-size', '32', '--max-model-len', '100', '--seed', '9', '--enforce-eager']);
  assert.deepEqual([s.pageSize, s.maxModelLen, s.seed], [32, 100, 9]);
  assert.ok(s.notes.some((n) => n.startsWith('--enforce-eager accepted without effect')));
  assert.equal(resolve([]).maxModelLen, 512);
  assert.throws(() => resolve(['--max-model-len', '4096']), /exceeds the model's max_position_embeddings/);
  assert.throws(() => resolve(['--tensor-parallel-size', '2']), (e) => isUserError(e) && /--tensor-parallel-size is a vLLM flag the faultline engine does not implement/.test(e.message) && e.at?.column === 1);
  assert.throws(() => resolve(['--dtype', 'half']), /--dtype half is not implemented/);
});

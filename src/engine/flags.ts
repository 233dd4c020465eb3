/**
 * vLLM-style flags → engine settings, shared by `faultline engine generate` and the server.
 * Flags are parsed by the lint's vLLM argv emulation (deployment/vllm-args.ts), so a flag means
 * the same thing here as in a launch file. A vLLM flag the engine does not implement is an error
 * (exit 2), except the few documented as accepted without effect.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { ArgValue } from '../deployment/vllm-args.js';
import { ATTENTION_BACKENDS, longOptionOf, type FlagSpec } from '../deployment/vllm-flags.js';
import type { ModelConfig } from './config.js';
import { EMULATION_PRESETS, presetSettings, withBackend, type AttentionSettings, type EmulationPreset } from './emulate.js';
import type { KvDtype } from './kv-cache/cache.js';
import { SUPPORTED_PAGE_SIZES } from './kv-cache/paged.js';
import type { Precision } from './model.js';

/** Flags the engine adds to vLLM's grammar (they win over a built-in flag of the same dest). */
export const ENGINE_FLAG_SPECS: readonly FlagSpec[] = [
  { dest: 'emulate', kind: 'choice', choices: EMULATION_PRESETS, help: 'which serving stack to emulate' },
  // vLLM's names plus the engine's exact backend
  { dest: 'attention_backend', kind: 'choice', choices: [...ATTENTION_BACKENDS, 'REFERENCE'], caseInsensitive: true },
];

/** vLLM flags the engine accepts although they change nothing, and why. */
export const ACCEPTED_WITHOUT_EFFECT: Readonly<Record<string, string>> = {
  enforce_eager: 'the engine has no CUDA graphs; it always runs eagerly',
  trust_remote_code: 'the engine runs no code from the checkpoint',
  disable_log_stats: 'the engine keeps no periodic stats log',
  gpu_memory_utilization: 'there is no GPU; the KV cache grows with use up to max_model_len',
};

/** vLLM flags the engine implements (besides the command's own flags and the model). */
const IMPLEMENTED = ['emulate', 'attention_backend', 'attention_config', 'kv_cache_dtype', 'kv_cache_dtype_skip_layers', 'block_size', 'dtype', 'seed', 'max_model_len'];
const ATTENTION_CONFIG_KEYS = ['backend', 'disable_flashinfer_q_quantization', 'use_trtllm_attention'];

export interface EngineSettings {
  emulation: EmulationPreset;
  attention: AttentionSettings;
  precision: Precision;
  kvDtype: KvDtype;
  /** Layers --kv-cache-dtype-skip-layers keeps out of the FP8 cache (empty: none). */
  kvSkipLayers: number[];
  pageSize: number;
  maxModelLen: number;
  seed: number;
  /** What the user should know (accepted-without-effect flags, resolved `auto` values). */
  notes: string[];
}

function fail(message: string, at: SourceLocation | undefined, hint: string): never {
  throw new UserError(message, { code: 'E_ENGINE_FLAG', at, hint });
}

/** pydantic-style bool: true/false, 1/0 and their strings. */
function toBool(v: unknown, name: string, at?: SourceLocation): boolean {
  if (v === true || v === 1 || v === 'true' || v === 'True' || v === '1') return true;
  if (v === false || v === 0 || v === 'false' || v === 'False' || v === '0') return false;
  return fail(`${name} must be true or false, got ${JSON.stringify(v)}`, at, `e.g. --attention-config.${name}=true`);
}

/**
 * Resolves the parsed flags against the model. `ownFlags` are the dests the calling command
 * handles itself (e.g. prompt, max_tokens); anything else must be implemented here or accepted.
 */
export function resolveEngineSettings(args: Map<string, ArgValue>, config: ModelConfig, ownFlags: ReadonlySet<string>): EngineSettings {
  const notes: string[] = [];
  for (const [dest, v] of args) {
    if (dest === 'model' || ownFlags.has(dest) || IMPLEMENTED.includes(dest)) continue;
    if (dest in ACCEPTED_WITHOUT_EFFECT) {
      notes.push(`${longOptionOf(dest)} accepted without effect: ${ACCEPTED_WITHOUT_EFFECT[dest]}`);
      continue;
    }
    fail(`${longOptionOf(dest)} is a vLLM flag the faultline engine does not implement`, v.at, `remove it; the engine implements ${IMPLEMENTED.map(longOptionOf).join(', ')} and accepts without effect ${Object.keys(ACCEPTED_WITHOUT_EFFECT).map(longOptionOf).join(', ')}`);
  }

  const emulation = (args.get('emulate')?.value as EmulationPreset | undefined) ?? 'reference';
  let attention = presetSettings(emulation);
  const ac = args.get('attention_config');
  const acValue = (ac?.value ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(acValue))
    if (!ATTENTION_CONFIG_KEYS.includes(key))
      fail(`attention_config.${key} is not implemented by the faultline engine`, ac?.keyAt?.[key] ?? ac?.at, `implemented keys: ${ATTENTION_CONFIG_KEYS.join(', ')}`);
  const backendArg = args.get('attention_backend');
  const requested = String(backendArg?.value ?? acValue.backend ?? 'AUTO').toUpperCase();
  if (requested === 'REFERENCE' || requested === 'FLASHINFER') attention = withBackend(attention, requested);
  else if (requested !== 'AUTO')
    fail(`attention backend ${requested} is not implemented by the faultline engine`, backendArg?.at ?? ac?.keyAt?.backend, 'use FLASHINFER (the emulated serving path) or REFERENCE (exact attention)');
  if (acValue.disable_flashinfer_q_quantization !== undefined)
    attention = { ...attention, disableQQuantization: toBool(acValue.disable_flashinfer_q_quantization, 'disable_flashinfer_q_quantization', ac?.keyAt?.disable_flashinfer_q_quantization) };
  if (acValue.use_trtllm_attention !== undefined && acValue.use_trtllm_attention !== null)
    attention = { ...attention, useTrtllmAttention: toBool(acValue.use_trtllm_attention, 'use_trtllm_attention', ac?.keyAt?.use_trtllm_attention) };

  const dtypeArg = args.get('dtype');
  const dtype = String(dtypeArg?.value ?? 'auto');
  let precision: Precision;
  if (dtype === 'auto' || dtype === 'bfloat16') precision = 'bf16';
  else if (dtype === 'float32' || dtype === 'float') precision = 'fp32';
  else return fail(`--dtype ${dtype} is not implemented by the faultline engine`, dtypeArg?.at, 'use bfloat16 (serving-like rounding) or float32 (exact)');

  const kvArg = args.get('kv_cache_dtype');
  const kv = String(kvArg?.value ?? 'auto');
  let kvDtype: KvDtype;
  if (kv === 'auto') {
    kvDtype = config.declaresFp8KvCache ? 'fp8_e4m3' : precision === 'bf16' ? 'bf16' : 'fp32';
    notes.push(`--kv-cache-dtype auto → ${kvDtype}${config.declaresFp8KvCache ? ' (the checkpoint declares an FP8 KV cache)' : ' (the model dtype)'}`);
  } else if (kv === 'bfloat16') kvDtype = 'bf16';
  else if (kv === 'fp8' || kv === 'fp8_e4m3') kvDtype = 'fp8_e4m3';
  else return fail(`--kv-cache-dtype ${kv} is not implemented by the faultline engine`, kvArg?.at, 'use auto, bfloat16, fp8 or fp8_e4m3');

  const blockArg = args.get('block_size');
  const pageSize = Number(blockArg?.value ?? 16);
  if (!(SUPPORTED_PAGE_SIZES as readonly number[]).includes(pageSize))
    fail(`--block-size ${pageSize} is not supported`, blockArg?.at, `use ${SUPPORTED_PAGE_SIZES.join(', ')} (FlashInfer's kernel block sizes on SM100)`);

  const lenArg = args.get('max_model_len');
  const requestedLen = Number(lenArg?.value ?? -1);
  if (requestedLen > config.maxPositions)
    fail(`--max-model-len ${requestedLen} exceeds the model's max_position_embeddings (${config.maxPositions})`, lenArg?.at, `use at most ${config.maxPositions}`);
  const maxModelLen = requestedLen > 0 ? requestedLen : config.maxPositions;

  const kvSkipLayers = skippedLayers(args.get('kv_cache_dtype_skip_layers'), config, kvDtype, notes);
  return { emulation, attention, precision, kvDtype, kvSkipLayers, pageSize, maxModelLen, seed: Number(args.get('seed')?.value ?? 0), notes };
}

/**
 * vLLM's --kv-cache-dtype-skip-layers: layer indices, or "sliding_window" for every sliding-window
 * layer (vllm/model_executor/layers/attention/attention.py gives such a layer kv_cache_dtype "auto").
 */
function skippedLayers(arg: ArgValue | undefined, config: ModelConfig, kvDtype: KvDtype, notes: string[]): number[] {
  if (!arg) return [];
  const items = Array.isArray(arg.value) ? arg.value.map(String) : String(arg.value).split(/[\s,]+/).filter(Boolean);
  const layers = new Set<number>();
  for (const item of items) {
    if (item === 'sliding_window') config.layerTypes.forEach((t, l) => t === 'sliding' && layers.add(l));
    else if (/^\d+$/.test(item) && Number(item) < config.layerTypes.length) layers.add(Number(item));
    else fail(`--kv-cache-dtype-skip-layers ${item} is neither a layer index nor sliding_window`, arg.at, `use layer indices 0–${config.layerTypes.length - 1} or sliding_window`);
  }
  if (kvDtype !== 'fp8_e4m3') notes.push(`--kv-cache-dtype-skip-layers has no effect: the KV cache is ${kvDtype}, not quantized`);
  else notes.push(`--kv-cache-dtype-skip-layers: layers ${[...layers].sort((a, b) => a - b).join(', ')} keep an unquantized KV cache`);
  return [...layers].sort((a, b) => a - b);
}

/**
 * Which KV-cache dtype a launch really gets. vLLM's rule (research/vllm-flashinfer.md §4,
 * configs-and-cli.md §1.5): an explicit --kv-cache-dtype wins; `auto` (or no flag) follows the
 * checkpoint's declaration (ModelOpt kv_cache_quant_algo / kv_cache_scheme, compressed-tensors
 * kv_cache_scheme) and otherwise means the model dtype. `kv_cache_dtype_skip_layers` can keep the
 * sliding-window layers unquantized.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asString, show } from './args.js';

export interface KvDtype {
  /** Resolved dtype string as vLLM spells it, or undefined when it cannot be known. */
  dtype?: string;
  /** Where the answer came from. */
  via: 'flag' | 'checkpoint' | 'model-dtype' | 'unknown';
  /** Sentence saying how the dtype was resolved. */
  how: string;
  at?: SourceLocation;
}

export function resolveKvCacheDtype(d: Deployment): KvDtype {
  const flag = arg(d, 'kv_cache_dtype');
  const value = asString(flag?.value)?.toLowerCase();
  if (value && value !== 'auto')
    return { dtype: value, via: 'flag', how: `--kv-cache-dtype ${value}`, at: flag?.at };
  const spelled = value ? '--kv-cache-dtype auto' : 'no --kv-cache-dtype (auto)';
  const facts = d.modelFacts;
  if (!facts)
    return {
      via: 'unknown',
      how: `${spelled} follows the checkpoint's declared KV dtype, and no model config was given (--model-config)`,
      at: flag?.at,
    };
  const fromCkpt = facts.kvDtypeFromCheckpoint;
  if (fromCkpt) {
    const evidence = facts.kvDtypeEvidence ? ` (${facts.kvDtypeEvidence})` : '';
    return {
      dtype: fromCkpt,
      via: 'checkpoint',
      how: `${spelled} follows the checkpoint, which declares a ${fromCkpt} KV cache${evidence}`,
      at: flag?.at ?? d.model?.at,
    };
  }
  return {
    dtype: 'auto',
    via: 'model-dtype',
    how: `${spelled}, and the checkpoint declares no quantized KV cache: the cache uses the model dtype`,
    at: flag?.at,
  };
}

/** True when kv_cache_dtype_skip_layers keeps the sliding-window layers out of the quantized cache. */
function skipsSlidingLayers(d: Deployment): SourceLocation | true | undefined {
  const skip = arg(d, 'kv_cache_dtype_skip_layers');
  if (!skip) return undefined;
  const items = Array.isArray(skip.value) ? skip.value : show(skip.value).split(/[\s,]+/);
  return items.some((x) => show(x) === 'sliding_window') ? (skip.at ?? true) : undefined;
}

/**
 * The KV cache is FP8 E4M3 — the layout FlashInfer's BF16-Q + FP8-KV trtllm-gen kernels take.
 * With `slidingLayers`, the question is about the sliding-window layers' cache.
 */
export function fp8KvCache(opts: { slidingLayers?: boolean } = {}): Condition {
  return {
    name: 'fp8-kv-cache',
    description: opts.slidingLayers
      ? 'the sliding-window layers use an FP8 (E4M3) KV cache, by flag or by the checkpoint under auto'
      : 'the KV cache is FP8 (E4M3), by flag or by the checkpoint under auto',
    check(d): ConditionResult {
      const kv = resolveKvCacheDtype(d);
      if (kv.dtype === undefined) return { status: 'unknown', detail: kv.how, at: kv.at };
      if (opts.slidingLayers) {
        const skip = skipsSlidingLayers(d);
        if (skip)
          return {
            status: 'not-met',
            detail: `kv_cache_dtype_skip_layers includes "sliding_window": the sliding layers keep an unquantized cache`,
            at: skip === true ? kv.at : skip,
          };
      }
      const t = kv.dtype;
      if (t === 'fp8' || t === 'fp8_e4m3') return { status: 'met', detail: `${kv.how}: FP8 E4M3`, at: kv.at };
      if (t === 'fp8_e5m2' || t === 'nvfp4')
        return {
          status: 'unknown',
          detail: `${kv.how}: ${t} — the public reports cover FP8 E4M3 only; ${t} with a BF16 query is not established`,
          at: kv.at,
        };
      return { status: 'not-met', detail: `${kv.how}: not an FP8 E4M3 cache`, at: kv.at };
    },
  };
}

/** The KV cache uses one of vLLM's TurboQuant formats (turboquant_k8v4, turboquant_4bit_nc, …). */
export function turboQuantKvCache(): Condition {
  return {
    name: 'turboquant-kv-cache',
    description: 'the KV cache uses a TurboQuant format (--kv-cache-dtype turboquant_*)',
    check(d): ConditionResult {
      const kv = resolveKvCacheDtype(d);
      if (kv.via !== 'flag')
        return {
          status: 'not-met',
          detail: 'TurboQuant is only chosen by --kv-cache-dtype turboquant_*; checkpoints do not declare it',
          at: kv.at,
        };
      return (kv.dtype ?? '').startsWith('turboquant')
        ? { status: 'met', detail: kv.how, at: kv.at }
        : { status: 'not-met', detail: `${kv.how}: not TurboQuant`, at: kv.at };
    },
  };
}

/** The KV cache (by flag, or by the checkpoint under auto) is one of `dtypes`. */
export function kvCacheDtypeIn(opts: { name: string; dtypes: string[]; label: string }): Condition {
  return {
    name: opts.name,
    description: `the KV cache is ${opts.label} (--kv-cache-dtype ${opts.dtypes.join(' / ')}, or declared by the checkpoint under auto)`,
    check(d): ConditionResult {
      const kv = resolveKvCacheDtype(d);
      if (kv.dtype === undefined) return { status: 'unknown', detail: kv.how, at: kv.at };
      return opts.dtypes.includes(kv.dtype)
        ? { status: 'met', detail: kv.how, at: kv.at }
        : { status: 'not-met', detail: `${kv.how}: not ${opts.label}`, at: kv.at };
    },
  };
}

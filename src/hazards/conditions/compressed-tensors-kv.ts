/**
 * A compressed-tensors (llm-compressor) checkpoint whose `kv_cache_scheme` makes the KV cache FP8.
 * vLLM then loads the KV scales through `CompressedTensorsKVCacheMethod` (research/interaction-bugs.md
 * B16). Under `--kv-cache-dtype auto` (or an FP8 value) the cache is FP8. An explicit non-FP8 value is
 * ignored by older vLLM copies (they switch to "fp8" whenever the scheme is set) and honoured by a 2026
 * copy (research/configs-and-cli.md §1.4); which release changed that is not established, so it is unknown.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asString } from './args.js';
import { noModelFacts } from './no-model-facts.js';

export function compressedTensorsFp8KvScheme(): Condition {
  return {
    name: 'compressed-tensors-fp8-kv',
    description:
      'the checkpoint is compressed-tensors with an FP8 kv_cache_scheme, and the KV cache is FP8 (auto or an fp8 --kv-cache-dtype)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'its quantization');
      const q = f.quantization;
      if (!q)
        return { status: 'not-met', detail: 'the checkpoint declares no quantization', at: d.model?.at };
      if (q.method !== 'compressed-tensors')
        return {
          status: 'not-met',
          detail: `${q.evidence}: not compressed-tensors, whose KV-scale loading is the defect`,
          at: d.model?.at,
        };
      if (!q.hasKvCacheScheme)
        return {
          status: 'not-met',
          detail: `${q.evidence} without a kv_cache_scheme: the checkpoint does not quantize the KV cache`,
          at: d.model?.at,
        };
      if (f.kvDtypeFromCheckpoint !== 'fp8_e4m3')
        return {
          status: 'unknown',
          detail: `${q.evidence} sets a kv_cache_scheme other than the FP8 one (num_bits 8, type float) of the report`,
          at: d.model?.at,
        };
      const flag = arg(d, 'kv_cache_dtype');
      const value = asString(flag?.value)?.toLowerCase();
      const scheme = `${q.evidence} with an FP8 kv_cache_scheme`;
      if (!value || value === 'auto')
        return {
          status: 'met',
          detail: `${scheme}; ${value ? '--kv-cache-dtype auto' : 'no --kv-cache-dtype'} follows it to an FP8 cache`,
          at: flag?.at ?? d.model?.at,
        };
      if (value.startsWith('fp8'))
        return { status: 'met', detail: `${scheme}; --kv-cache-dtype ${value}`, at: flag?.at };
      return {
        status: 'unknown',
        detail: `${scheme}; --kv-cache-dtype ${value} is ignored by older vLLM (the scheme forces "fp8") and honoured by 2026 vLLM — which release changed that is not established`,
        at: flag?.at,
      };
    },
  };
}

/**
 * SGLang conditions that need more than one argument or a model fact (the prefill CUDA-graph
 * backend has its own file, prefill-cuda-graph.ts): attention TP 1 under DP attention, an FP8 KV cache, the checkpoint's KV scales, a mixture-of-experts model, an NVFP4 checkpoint.
 */
import type { Deployment } from '../../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../../hazard.js';
import { noModelFacts } from '../no-model-facts.js';
import { said, sglArg } from './args.js';

/** DP attention with as many DP ranks as TP ranks: each rank's attention runs unsharded (attention TP 1). */
export function dpAttentionTpOne(): Condition {
  return {
    name: 'dp-attention-tp-one',
    description: '--enable-dp-attention with --dp-size equal to --tp-size (attention TP 1 on every rank)',
    check(d: Deployment): ConditionResult {
      const on = sglArg(d, 'enable_dp_attention');
      if (on.value !== true)
        return { status: 'not-met', detail: '--enable-dp-attention is not set', at: d.at };
      const tp = Number(sglArg(d, 'tp_size').value ?? 1);
      const dp = Number(sglArg(d, 'dp_size').value ?? 1);
      return tp > 1 && tp === dp
        ? {
            status: 'met',
            detail: `--enable-dp-attention with TP ${tp} and DP ${dp}: attention TP is 1`,
            at: on.at,
          }
        : {
            status: 'not-met',
            detail: `--enable-dp-attention with TP ${tp} and DP ${dp}: attention TP is ${dp > 0 ? tp / dp : '?'}`,
            at: on.at,
          };
    },
  };
}

const FP8 = ['fp8_e4m3', 'fp8_e5m2'];

/** The KV cache is FP8 (`auto` follows the model dtype, FP8 only when the checkpoint declares it). */
export function fp8KvCache(): Condition {
  return {
    name: 'fp8-kv-cache',
    description: 'the KV cache is FP8 (--kv-cache-dtype fp8_e4m3 / fp8_e5m2)',
    check(d: Deployment): ConditionResult {
      const v = sglArg(d, 'kv_cache_dtype');
      const text = String(v.value ?? 'auto');
      if (FP8.includes(text)) return { status: 'met', detail: said('kv_cache_dtype', v), at: v.at };
      if (text === 'auto' && d.modelFacts?.kvDtypeFromCheckpoint?.startsWith('fp8'))
        return {
          status: 'unknown',
          detail: `--kv-cache-dtype auto and ${d.modelFacts.kvDtypeEvidence ?? 'the checkpoint declares an FP8 KV cache'}: whether SGLang follows the checkpoint here is not established`,
          at: v.at,
        };
      return { status: 'not-met', detail: `${said('kv_cache_dtype', v)} is not FP8`, at: v.at };
    },
  };
}

export function notFp8KvCache(): Condition {
  const fp8 = fp8KvCache();
  return {
    name: 'bf16-kv-cache',
    description: 'the KV cache is not FP8 (auto / bf16)',
    check(d: Deployment): ConditionResult {
      const r = fp8.check(d);
      if (r.status === 'unknown') return r;
      if (r.status === 'met') return { ...r, status: 'not-met' };
      // SGLang's own auto: every launch that names no KV dtype has it.
      return { ...r, status: 'met', byDefault: sglArg(d, 'kv_cache_dtype').source === 'default' };
    },
  };
}

export function checkpointKvScales(): Condition {
  return {
    name: 'checkpoint-kv-scales',
    description: 'the checkpoint stores per-layer k_scale / v_scale tensors',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'whether the checkpoint has KV scales');
      if (!f.scales)
        return {
          status: 'unknown',
          detail: `no checkpoint tensors were read (${f.source} alone), so whether it stores k/v scales is unknown`,
          at: d.model?.at,
        };
      return f.scales.present.k || f.scales.present.v
        ? { status: 'met', detail: 'the checkpoint stores k_scale / v_scale', at: d.model?.at }
        : { status: 'not-met', detail: 'the checkpoint stores no k/v scales', at: d.model?.at };
    },
  };
}

const MOE_TYPES = [
  'qwen3_moe',
  'qwen2_moe',
  'qwen3_5_moe',
  'mixtral',
  'deepseek_v2',
  'deepseek_v3',
  'gpt_oss',
  'glm4_moe',
  'glm_moe_dsa',
  'kimi_k2',
  'llama4',
  'dbrx',
  'grok-1',
];

export function moeModel(): Condition {
  return {
    name: 'moe-model',
    description: 'the model is a mixture of experts',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'whether the model is a mixture of experts');
      const t = f.modelType ?? '';
      const arch = f.architectures?.[0] ?? '';
      return MOE_TYPES.includes(t) || /Moe/i.test(arch)
        ? {
            status: 'met',
            detail: `${arch || `model_type ${t}`} is a mixture-of-experts model`,
            at: d.model?.at,
          }
        : {
            status: 'not-met',
            detail: `${arch || `model_type ${t || '?'}`} is not a mixture-of-experts model faultline knows`,
            at: d.model?.at,
          };
    },
  };
}

export function nvfp4Checkpoint(): Condition {
  return {
    name: 'nvfp4-checkpoint',
    description:
      'the weights are ModelOpt NVFP4 (--quantization modelopt_fp4, or the checkpoint declares it)',
    check(d: Deployment): ConditionResult {
      const q = sglArg(d, 'quantization');
      if (q.value === 'modelopt_fp4') return { status: 'met', detail: said('quantization', q), at: q.at };
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'the checkpoint’s quantization');
      return f.quantization?.activations === 'nvfp4'
        ? { status: 'met', detail: f.quantization.evidence, at: d.model?.at }
        : { status: 'not-met', detail: 'the checkpoint is not NVFP4', at: d.model?.at };
    },
  };
}

/** Structured output is served: a grammar backend other than `none` (xgrammar by default). */
export function grammarBackend(): Condition {
  return {
    name: 'structured-output',
    description:
      'requests can ask for grammar-constrained output (a --grammar-backend other than none; xgrammar by default)',
    check(d: Deployment): ConditionResult {
      const v = sglArg(d, 'grammar_backend');
      return v.value === 'none'
        ? { status: 'not-met', detail: '--grammar-backend none: no grammar-constrained requests', at: v.at }
        : {
            status: 'met',
            detail: `${v.value == null ? 'the default grammar backend (xgrammar)' : said('grammar_backend', v)} constrains JSON-schema / regex / EBNF requests`,
            at: v.at ?? d.at,
          };
    },
  };
}

/**
 * Multi-head latent attention (MLA) and its prefill paths in vLLM (research/interaction-bugs.md B15).
 * vLLM runs a model as MLA when its text config's model_type is one of the DeepSeek-style types
 * (ModelConfig.is_deepseek_mla, which also needs kv_lora_rank) — the list below is that property's,
 * from the vLLM source of 2026, plus GLM-5's glm_moe_dsa. A prefill with cached context (earlier
 * chunks of a chunked prompt, or a prefix-cache hit) merges attention over that context, processed in
 * chunks, with attention over the new tokens; the reported defects sit in that merge.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { chosenAttentionBackend } from './attention-backend.js';
import { arg, asBool, asInt, asString, show, subArg } from './args.js';
import { inFamily } from './gpu.js';
import { modelFamilyOf } from '../../deployment/model-family.js';

export const MLA_MODEL_TYPES: readonly string[] = [
  'deepseek_v2',
  'deepseek_v3',
  'deepseek_v32',
  'deepseek_mtp',
  'kimi_k2',
  'kimi_linear',
  'longcat_flash',
  'pangu_ultra_moe',
  'pangu_ultra_moe_mtp',
  'glm_moe_dsa',
];

export function mlaModel(): Condition {
  return {
    name: 'mla-model',
    role: 'fact',
    description: 'the model uses multi-head latent attention (DeepSeek V2/V3/R1, Kimi K2, GLM-5 …)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) {
        const byName = d.modelFamily ?? modelFamilyOf(d.model);
        if (byName && !byName.mla)
          return {
            status: 'not-met',
            detail: `by its name, the model is not one vLLM runs as MLA (${byName.why}); --model-config would settle it from config.json`,
            at: byName.at,
          };
        const hint = byName?.mla ? `; the model name suggests an MLA model (${byName.why})` : '';
        return {
          status: 'unknown',
          detail: `no model config given (pass --model-config PATH), so whether the model uses MLA is unknown${hint}`,
          at: d.model?.at,
        };
      }
      const t = f.modelType;
      if (t && MLA_MODEL_TYPES.includes(t))
        return {
          status: 'met',
          detail: `model_type ${t} runs as MLA in vLLM (${f.source})`,
          at: d.model?.at,
        };
      return {
        status: 'not-met',
        detail: `model_type ${t ?? 'unknown'} is not one vLLM runs as MLA`,
        at: d.model?.at,
      };
    },
  };
}

/**
 * A prefill can have cached context: chunked prefill (on by default) prefills long prompts in pieces,
 * each later piece against the earlier ones, and prefix caching (on by default) turns cache hits into
 * context. Whether a batch's context needs two or more context chunks depends on prompt lengths,
 * which the launch cannot show; "met" means it can happen, as for concurrency.
 */
export function mlaPrefillContext(): Condition {
  return {
    name: 'prefill-with-context',
    // Prompt lengths decide it; chunked prefill and prefix caching are on by default.
    role: 'bound',
    description:
      'prefills can run against cached context processed in chunks (chunked prefill or prefix caching is on); long prompts make two or more context chunks',
    check(d: Deployment): ConditionResult {
      const chunked = arg(d, 'enable_chunked_prefill');
      const prefix = arg(d, 'enable_prefix_caching');
      const chunkedOn = chunked ? asBool(chunked.value) : true;
      const prefixOn = prefix ? asBool(prefix.value) : true;
      if (chunkedOn === undefined || prefixOn === undefined) {
        const [flag, bad] =
          chunkedOn === undefined
            ? ['--enable-chunked-prefill', chunked]
            : ['--enable-prefix-caching', prefix];
        return { status: 'unknown', detail: `${flag} ${show(bad?.value)} is not a boolean`, at: bad?.at };
      }
      if (!chunkedOn && !prefixOn)
        return {
          status: 'not-met',
          detail:
            '--no-enable-chunked-prefill and --no-enable-prefix-caching: every prompt is prefilled whole with no cached context to merge',
          at: chunked?.at,
        };
      const budget = arg(d, 'max_num_batched_tokens');
      const why = chunkedOn
        ? `chunked prefill is ${chunked ? 'on' : 'on by default'}: prompts longer than ${budget ? `--max-num-batched-tokens ${show(budget.value)}` : 'the step token budget'} are prefilled against their earlier chunks`
        : 'prefix caching is on: cache hits are prefilled as context';
      return {
        status: 'met',
        detail: `${why}; long prompts spread that context over two or more chunks`,
        at: chunked?.at ?? budget?.at ?? prefix?.at,
      };
    },
  };
}

/**
 * One of the three reported triggers holds: (1) the CUTLASS_MLA backend (vllm#26042), (2) the
 * FlashAttention MLA prefill backend after PR #32623 (V padding sliced back inside the backend;
 * PR #42642), (3) prefill context parallelism, where a later context chunk can be empty for some rows
 * (PR #49294). Unset choices are unknown: the record does not say which prefill backend vLLM picks.
 */
export function affectedMlaPrefillPath(): Condition {
  return {
    name: 'affected-mla-prefill-path',
    description:
      'an affected path merges the context chunks: the CUTLASS_MLA backend, the FLASH_ATTN MLA prefill backend (V padding), or prefill context parallelism (-pcp > 1)',
    check(d: Deployment): ConditionResult {
      const pcp = arg(d, 'prefill_context_parallel_size');
      const pcpSize = asInt(pcp?.value);
      if (pcpSize !== undefined && pcpSize > 1)
        return {
          status: 'met',
          detail: `--prefill-context-parallel-size ${pcpSize}: rows whose later context chunk is empty were merged as valid (PR #49294)`,
          at: pcp?.at,
        };
      const choice = chosenAttentionBackend(d);
      if (choice.explicit?.name === 'CUTLASS_MLA')
        return {
          status: 'met',
          detail: `${choice.explicit.spelled}: the backend of vllm#26042 (GSM8K 0.64 with chunked prefill)`,
          at: choice.explicit.at,
        };
      const prefill = subArg(d, 'attention_config', 'mla_prefill_backend');
      const prefillName = asString(prefill?.value)?.toUpperCase();
      if (prefillName === 'FLASH_ATTN')
        return {
          status: 'met',
          detail:
            'attention_config.mla_prefill_backend=FLASH_ATTN: the FlashAttention MLA prefill whose V unpadding broke the context merge after PR #32623 (PR #42642)',
          at: prefill?.at,
        };
      const unknowns: string[] = [];
      if (pcp && pcpSize === undefined)
        unknowns.push(`--prefill-context-parallel-size ${show(pcp.value)} is not a number`);
      if (choice.uncertain) unknowns.push(choice.uncertain);
      else if (!choice.explicit) {
        if (!d.gpu) unknowns.push('no attention backend and no GPU given, so the MLA backend is unknown');
        else if (!inFamily(d.gpu.value.sm, 100))
          unknowns.push(
            'no attention backend given; which MLA backend vLLM picks on this GPU is not in the record',
          );
      }
      if (!prefillName || prefillName === 'AUTO')
        unknowns.push(
          'attention_config.mla_prefill_backend is unset: vLLM picks the MLA prefill backend, and whether it picks FLASH_ATTN here is not in the record',
        );
      if (unknowns.length)
        return { status: 'unknown', detail: unknowns.join('; '), at: prefill?.at ?? pcp?.at };
      const decode = choice.explicit
        ? choice.explicit.spelled
        : 'no attention backend given (FLASHINFER_MLA comes before CUTLASS_MLA on compute capability 10.x)';
      return {
        status: 'not-met',
        detail: `${decode}, attention_config.mla_prefill_backend=${prefillName}, no prefill context parallelism: none of the reported paths`,
        at: prefill?.at,
      };
    },
  };
}

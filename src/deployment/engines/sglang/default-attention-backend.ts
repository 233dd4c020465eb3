/**
 * The attention backend SGLang picks when the launch names none, per release generation, as read
 * from its server_args.py (`_get_default_attn_backend` and the per-model adjustments before it):
 *
 *   main @ 65d3b47f (2026-06-08), used for releases after 0.5.6 and an unknown version:
 *     per model, before the generic choice: GPT-OSS → trtllm_mha on SM10x, fa3 on SM90, else triton;
 *     Gemma 4 → trtllm_mha on SM10x, else triton; DeepSeek V3-style MLA on SM10x → trtllm_mha's MLA
 *     sibling trtllm_mla. Generic MHA: SM90 with no speculative decoding or top-k 1 at page size 1 →
 *     fa3; SM10x with the same, and an explicit --speculative-eagle-topk when speculating →
 *     trtllm_mha; otherwise flashinfer (triton for models with attention sinks). Generic MLA: SM90 →
 *     fa3, SM10x → flashinfer, else triton.
 *   0.5.6.post2 @ 5c8bd8b5: MHA: SM90 + (no spec or top-k 1) + an FA3-default architecture → fa3;
 *     any Blackwell (SM10x or SM12x) + (no spec or top-k 1) → trtllm_mha; else flashinfer.
 *   0.5.4.post3 @ 09938e1f, 0.5.5.post3 @ 7b2fb3d4: as 0.5.6 without the Blackwell rule.
 *   older releases: not emulated (the choice is unknown, never assumed).
 * The speculative top-k seen here is the one written on the command line: SGLang fills in its
 * speculative defaults only after it has chosen the backend.
 */
import type { ModelFacts } from '../../deployment.js';
import { compareVersions, parseVersion } from '../../versions.js';

export type Generation = 'main' | '0.5.6' | '0.5.4' | 'unsupported';

export function generationOf(version: string | undefined): Generation {
  const v = version && parseVersion(version) ? version : undefined;
  if (!v) return 'main';
  if (compareVersions(v, '0.5.7') >= 0) return 'main';
  if (compareVersions(v, '0.5.6') >= 0) return '0.5.6';
  if (compareVersions(v, '0.5.4') >= 0) return '0.5.4';
  return 'unsupported';
}

/** Architectures SGLang runs as MLA (model_config.py's attention_arch), plus DeepSeek V2/V3 themselves. */
const MLA_ARCHS = new Set([
  'DeepseekV2ForCausalLM',
  'DeepseekV3ForCausalLM',
  'DeepseekV32ForCausalLM',
  'DeepseekVL2ForCausalLM',
  'KimiK25ForConditionalGeneration',
  'KimiLinearForCausalLM',
  'KimiVLForConditionalGeneration',
  'LongcatFlashForCausalLM',
  'MiniCPM3ForCausalLM',
  'MistralLarge3ForCausalLM',
  'PixtralForConditionalGeneration',
  'BailingMoeV2_5ForCausalLM',
  'SarvamMLAForCausalLM',
  'GlmMoeDsaForCausalLM',
]);
const MLA_MODEL_TYPES = new Set([
  'deepseek_v2',
  'deepseek_v3',
  'deepseek_v32',
  'kimi_k2',
  'glm_moe_dsa',
  'longcat_flash',
]);

// prettier-ignore
const FA3_DEFAULT_0_5_6 = new Set(['Llama4ForConditionalGeneration', 'LlamaForCausalLM', 'Olmo2ForCausalLM', 'Gemma2ForCausalLM', 'Gemma3ForConditionalGeneration', 'Qwen2ForCausalLM', 'Qwen3ForCausalLM', 'Qwen3MoeForCausalLM', 'Qwen3VLForConditionalGeneration', 'Qwen3VLMoeForConditionalGeneration', 'Glm4MoeForCausalLM', 'Glm4vForConditionalGeneration', 'Glm4vMoeForConditionalGeneration', 'Step3VLForConditionalGeneration']);
// prettier-ignore
const FA3_DEFAULT_0_5_4 = new Set(['Qwen2ForCausalLM', 'Llama4ForConditionalGeneration', 'LlamaForCausalLM', 'Olmo2ForCausalLM', 'Gemma2ForCausalLM', 'Gemma3ForConditionalGeneration', 'Qwen3ForCausalLM', 'Qwen3MoeForCausalLM', 'Glm4MoeForCausalLM', 'Glm4vMoeForConditionalGeneration', 'Step3VLForConditionalGeneration']);

export function architectureOf(f: ModelFacts | undefined): string | undefined {
  return f?.architectures?.[0];
}

export function isMlaModel(f: ModelFacts): boolean {
  const arch = architectureOf(f);
  return (
    (arch !== undefined && MLA_ARCHS.has(arch)) ||
    (f.modelType !== undefined && MLA_MODEL_TYPES.has(f.modelType))
  );
}

const isGptOss = (f: ModelFacts) => architectureOf(f) === 'GptOssForCausalLM' || f.modelType === 'gpt_oss';
const isGemma4 = (f: ModelFacts) =>
  /^Gemma4For/.test(architectureOf(f) ?? '') || /^gemma4/.test(f.modelType ?? '');
const isDeepseekV3 = (f: ModelFacts) =>
  architectureOf(f) === 'DeepseekV3ForCausalLM' || f.modelType === 'deepseek_v3';

export interface BackendInputs {
  /** Compute capability × 10 (100 for B200); undefined when the GPU is unknown. */
  sm?: number;
  modelFacts?: ModelFacts;
  /** The server is a ROCm (HIP) build running on AMD GPUs. */
  hip?: boolean;
  speculative: boolean;
  /** --speculative-eagle-topk as written (SGLang has not filled its default yet). */
  eagleTopk?: number;
  /** --page-size as written. */
  pageSize?: number;
}

export type BackendChoice = { backend: string; why: string } | { unknown: string };

const family = (sm: number) => Math.floor(sm / 10);

export function defaultAttentionBackend(gen: Generation, x: BackendInputs): BackendChoice {
  if (gen === 'unsupported')
    return {
      unknown: 'faultline does not emulate the default attention backend of SGLang releases before 0.5.4',
    };
  // A HIP build picks aiter whatever the model (research/configs-and-cli.md, SGLang's hardware defaults).
  if (x.hip && x.sm === undefined)
    return { backend: 'aiter', why: 'SGLang on AMD GPUs (a ROCm / HIP build)' };
  if (x.sm === undefined)
    return { unknown: 'SGLang picks it from the GPU at start, and the GPU is not known (give --gpu)' };
  if (!x.modelFacts)
    return {
      unknown:
        'SGLang picks it from the model architecture and the GPU, and no model config was given (--model-config)',
    };
  const f = x.modelFacts;
  const fam = family(x.sm);
  const topkOne =
    x.eagleTopk === undefined || (x.eagleTopk === 1 && (x.pageSize === undefined || x.pageSize === 1));
  const gpu = `SM${x.sm}`;
  if (gen === 'main') {
    if (isGptOss(f)) {
      const b = fam === 10 ? 'trtllm_mha' : x.sm === 90 ? 'fa3' : 'triton';
      return { backend: b, why: `GPT-OSS on ${gpu}` };
    }
    if (isGemma4(f)) return { backend: fam === 10 ? 'trtllm_mha' : 'triton', why: `Gemma 4 on ${gpu}` };
    if (isDeepseekV3(f) && fam === 10) return { backend: 'trtllm_mla', why: `DeepSeek V3 on ${gpu}` };
  }
  if (isMlaModel(f)) {
    const b = x.sm === 90 ? 'fa3' : fam === 10 ? 'flashinfer' : 'triton';
    return { backend: b, why: `an MLA model on ${gpu}` };
  }
  const arch = architectureOf(f) ?? `model_type ${f.modelType ?? '?'}`;
  if (gen === 'main') {
    if (x.sm === 90 && topkOne)
      return {
        backend: 'fa3',
        why: `${gpu}, ${x.speculative ? 'speculative top-k 1' : 'no speculative decoding'}`,
      };
    if (fam === 10 && topkOne && (!x.speculative || x.eagleTopk !== undefined))
      return {
        backend: 'trtllm_mha',
        why: `${gpu}, ${x.speculative ? 'speculative top-k given as 1' : 'no speculative decoding'}`,
      };
    if (isGptOss(f)) return { backend: 'triton', why: 'attention sinks (FlashInfer lacks them)' };
    const why =
      fam === 10 && x.speculative && x.eagleTopk === undefined
        ? `${gpu} with speculative decoding and no --speculative-eagle-topk (trtllm_mha is chosen only when it is given)`
        : `${gpu}`;
    return { backend: 'flashinfer', why };
  }
  const fa3Archs = gen === '0.5.6' ? FA3_DEFAULT_0_5_6 : FA3_DEFAULT_0_5_4;
  if (x.sm === 90 && topkOne && fa3Archs.has(architectureOf(f) ?? ''))
    return { backend: 'fa3', why: `${gpu}, ${arch} is an FA3-default architecture` };
  if (gen === '0.5.6' && (fam === 10 || fam === 12) && topkOne)
    return { backend: 'trtllm_mha', why: `Blackwell ${gpu}` };
  return { backend: 'flashinfer', why: `${gpu}, ${arch}` };
}

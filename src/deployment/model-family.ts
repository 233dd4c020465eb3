/**
 * A model's family from its name alone, for launches given without a model config. The name is a
 * weaker fact than config.json (which always wins: hazards read `modelFacts` first), so the rule is
 * small, ordered and pinned by a test table (model-family.test.ts):
 * 1. A distilled model is its student's architecture: "DeepSeek-R1-Distill-Llama-70B" is a Llama,
 *    "DeepSeek-R1-Distill-Qwen-7B" a Qwen2 — neither runs as MLA, whatever the teacher's name says.
 * 2. DeepSeek V2 / V3 / R1 / V3.x (and Coder-V2, Prover-V2), Kimi K2, GLM-5 and LongCat-Flash run as
 *    multi-head latent attention (MLA) in vLLM; DeepSeek LLM / Coder v1 are Llama-architecture models.
 * 3. Names of other families (Llama, Qwen, Mistral, Gemma, Phi, gpt-oss, OPT …) are not MLA.
 * Anything else — a local path without a family in it, a run-time `$MODEL` — has no family.
 */
import type { Located } from '../core/located.js';

export interface ModelFamilyFromName {
  family: string;
  /** vLLM runs the family as multi-head latent attention. */
  mla: boolean;
  /** Which part of the name decided it, for the finding's detail. */
  why: string;
}

/** Ordered: the first rule whose pattern matches the name's last path component decides. */
const RULES: readonly [RegExp, string, boolean, string][] = [
  [/distill-(llama|qwen|mistral|gemma|phi)/i, '$1', false, 'a model distilled into a $1 architecture'],
  [/deepseek-(?:llm|coder)-\d/i, 'llama', false, 'DeepSeek LLM / Coder v1 use the Llama architecture'],
  [/deepseek-(?:v2|v3|r1|coder-v2|prover-v2)/i, 'deepseek', true, 'DeepSeek V2 / V3 / R1 run as MLA'],
  [/kimi-k2/i, 'kimi_k2', true, 'Kimi K2 runs as MLA'],
  [/glm-?5/i, 'glm_moe_dsa', true, 'GLM-5 runs as MLA'],
  [/longcat-flash/i, 'longcat_flash', true, 'LongCat-Flash runs as MLA'],
  [/gpt-oss/i, 'gpt_oss', false, 'gpt-oss'],
  [/llama|codellama/i, 'llama', false, 'a Llama model'],
  [/qwen|qwq/i, 'qwen', false, 'a Qwen model'],
  [/mistral|mixtral|ministral|codestral|magistral|devstral/i, 'mistral', false, 'a Mistral model'],
  [/gemma/i, 'gemma', false, 'a Gemma model'],
  [/\bphi-?\d/i, 'phi', false, 'a Phi model'],
  [/(?:^|[^a-z])opt-\d/i, 'opt', false, 'an OPT model'],
  [/granite/i, 'granite', false, 'a Granite model'],
  [/falcon/i, 'falcon', false, 'a Falcon model'],
];

export function modelFamilyFromName(name: string): ModelFamilyFromName | undefined {
  if (!name || name.includes('$') || name.includes('{{')) return undefined;
  // A Hugging Face cache path names the model in `models--ORG--NAME/snapshots/<hash>`.
  const cached = /models--[^/]+--([^/]+)/.exec(name)?.[1];
  const last = cached ?? name.replace(/\/+$/, '').split('/').pop() ?? name;
  for (const [pattern, family, mla, why] of RULES) {
    const m = pattern.exec(last);
    if (!m) continue;
    const student = (m[1] ?? '').toLowerCase();
    return { family: family.replace('$1', student), mla, why: `${last}: ${why.replace('$1', student)}` };
  }
  return undefined;
}

/** The family fact of a launch's model argument, located where the model is written. */
export function modelFamilyOf(
  model: Located<string> | undefined,
): (Located<string> & { mla: boolean; why: string }) | undefined {
  const f = model && modelFamilyFromName(model.value);
  return f && { value: f.family, mla: f.mla, why: f.why, ...(model.at ? { at: model.at } : {}) };
}

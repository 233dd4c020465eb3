/**
 * `specdec-penalties-dropped`: vLLM V1's speculative decoding as it was before PR #19482
 * (vllm-project/vllm#18902, hazard FL013). Under speculative decoding the rejection sampler decides
 * every token of a verify step — which drafts are accepted, the correction token, the bonus token —
 * and it did not run the logits processors that apply repetition, frequency and presence penalties,
 * so a request's penalties changed nothing while drafts were in flight, with no warning. PR #19482
 * ("[V1] Logit processors for rejection sampler": "previously, these parameters were silently
 * ignored") added them.
 *
 * This is an emulation of that published mechanism, not a guess at a hidden one: with it on, a
 * verify step that carried drafts chooses its tokens from the raw logits; steps without drafts
 * (the first token after prefill, a step whose drafter proposed nothing) go through the ordinary
 * sampler, penalties included, as they did in vLLM. Off by default; `faultline engine serve
 * --spec-fault-model specdec-penalties-dropped` turns it on (it needs --speculative-config).
 * Fixed behaviour (the default): the rejection sampler scores position t with penalties that count
 * the drafts accepted before t as output, as vLLM after PR #19482 does.
 */
export const SPEC_FAULT_MODELS = ['specdec-penalties-dropped'] as const;
export type SpecFaultModel = (typeof SPEC_FAULT_MODELS)[number];

export const SPEC_FAULT_SUMMARY: Record<SpecFaultModel, string> = {
  'specdec-penalties-dropped':
    'spec fault model specdec-penalties-dropped: verify steps ignore repetition/frequency/presence penalties, as vLLM V1 did before PR #19482 (vllm#18902, FL013)',
};

/** Whether a verify step that carried `drafts` decides its tokens without penalties. */
export function penaltiesDroppedIn(faultModel: SpecFaultModel | undefined, drafts: number): boolean {
  return faultModel === 'specdec-penalties-dropped' && drafts > 0;
}

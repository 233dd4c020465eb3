/**
 * MTP drafting (docs/model-format.md, MTP head): from the target's hidden state h_t (before the final
 * norm) at the last verified position and the token t+1 the target just chose, the head predicts
 * t+2; its output state g stands in for h_{t+1} for the next step, so k drafts are k chained head
 * steps (vLLM's `mtp` method with k > n_predict reuses the one head the same way). Drafts are greedy
 * (draft_sample_method "greedy"). The head has no attention, so drafting touches no KV cache.
 */
import { argmax } from '../sampling.js';

/** The one operation MTP drafting needs from the engine (Engine.mtpStep). */
export interface MtpHead {
  mtpStep(hidden: Float32Array, nextToken: number): { logits: Float32Array; g: Float32Array } | null;
}

export function proposeMtp(head: MtpHead, hidden: Float32Array, nextToken: number, k: number): number[] {
  const drafts: number[] = [];
  let h = hidden;
  let token = nextToken;
  for (let i = 0; i < k; i++) {
    const step = head.mtpStep(h, token);
    if (!step) throw new Error('MTP drafting on a model without an MTP head (the spec config should have refused it)');
    token = argmax(step.logits);
    drafts.push(token);
    h = step.g;
  }
  return drafts;
}

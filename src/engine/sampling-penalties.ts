/**
 * Repetition, frequency and presence penalties, exactly as vLLM applies them to a row of logits
 * before sampling (vllm-project/vllm: vllm/model_executor/layers/utils.py `apply_penalties` @
 * 00358600, with vllm/_custom_ops.py `apply_repetition_penalties_torch` @ 7bcae67b):
 *
 *   repetition (tokens seen in the prompt OR the output): logit > 0 → logit / r, else logit · r
 *   frequency (output only):  logit −= f · count(token in output)
 *   presence  (output only):  logit −= p · [token in output]
 *
 * in that order, in float32 as the logits are. Validation follows vllm/sampling_params.py
 * `_verify_args` @ 00388f65: presence and frequency in [−2, 2], repetition finite and > 0; the
 * neutral values (1, 0, 0) change nothing. Log-probabilities reported to clients stay those of the
 * raw logits (vLLM's default `raw_logprobs`); penalties only change which token is chosen.
 */
export interface PenaltyParams {
  repetition: number;
  frequency: number;
  presence: number;
}

export const NO_PENALTIES: Readonly<PenaltyParams> = { repetition: 1, frequency: 0, presence: 0 };

export const isNeutral = (p: PenaltyParams): boolean => p.repetition === 1 && p.frequency === 0 && p.presence === 0;

/** Why vLLM would refuse these values, or undefined when it accepts them. */
export function penaltyProblem(p: PenaltyParams): string | undefined {
  if (!(p.presence >= -2 && p.presence <= 2)) return `presence_penalty must be in [-2, 2], got ${p.presence}`;
  if (!(p.frequency >= -2 && p.frequency <= 2)) return `frequency_penalty must be in [-2, 2], got ${p.frequency}`;
  if (!Number.isFinite(p.repetition)) return `repetition_penalty must be a finite number, got ${p.repetition}`;
  if (p.repetition <= 0) return `repetition_penalty must be greater than zero, got ${p.repetition}`;
  return undefined;
}

/** The tokens a request has seen: its prompt once, its output as it grows. */
export class PenaltyHistory {
  private readonly inPrompt: Set<number>;
  private readonly outputCounts = new Map<number, number>();

  constructor(prompt: readonly number[]) {
    this.inPrompt = new Set(prompt);
  }

  append(id: number): void {
    this.outputCounts.set(id, (this.outputCounts.get(id) ?? 0) + 1);
  }

  /**
   * A penalized copy of `logits`, with `pending` counted as output after what was appended (the
   * drafts accepted earlier in a verify step, when the rejection sampler scores the next position).
   */
  penalize(logits: Float32Array, p: PenaltyParams, pending: readonly number[] = []): Float32Array {
    const out = Float32Array.from(logits);
    if (isNeutral(p)) return out;
    const counts = pending.length ? new Map(this.outputCounts) : this.outputCounts;
    for (const id of pending) counts.set(id, (counts.get(id) ?? 0) + 1);
    const seen = new Set([...this.inPrompt, ...counts.keys()]);
    const r = Math.fround(p.repetition);
    for (const id of seen) {
      if (id < 0 || id >= out.length) continue;
      // float32 arithmetic, as vLLM's in-place tensor ops: scaling = 1/r for positive logits (a float32 reciprocal), r otherwise
      out[id] = out[id] > 0 ? Math.fround(out[id] * Math.fround(1 / r)) : Math.fround(out[id] * r);
    }
    const f = Math.fround(p.frequency);
    const pr = Math.fround(p.presence);
    for (const [id, n] of counts) {
      if (id < 0 || id >= out.length) continue;
      out[id] = Math.fround(out[id] - Math.fround(f * n));
      out[id] = Math.fround(out[id] - pr);
    }
    return out;
  }
}

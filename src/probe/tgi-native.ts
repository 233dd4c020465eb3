/**
 * Hugging Face TGI's native POST /generate with `details: true`: `details.tokens` lists every
 * generated token as `{id, text, logprob, special}`, `details.top_tokens` (with `top_n_tokens`) the
 * alternatives, `details.finish_reason` is `length`, `eos_token` or `stop_sequence`
 * (huggingface/text-generation-inference router/src/lib.rs: GenerateResponse, Details, Token).
 * TGI's prompts are text (`inputs` is a string), so a TGI server can be read but not sent the
 * probe's token-id prompts: the capability check says so before a suite runs.
 */
import { z } from 'zod';
import type { Generation, TopLogprob } from '../oracle/types.js';
import { ResponseError } from './responses.js';

const token = z.looseObject({
  id: z.number().int(),
  logprob: z.number().nullable(),
  text: z.string().optional(),
});
const response = z.looseObject({
  generated_text: z.string(),
  details: z
    .looseObject({
      finish_reason: z.string(),
      tokens: z.array(token),
      top_tokens: z.array(z.array(token)).nullish(),
    })
    .nullish(),
});

const FINISH: Record<string, string> = { length: 'length', eos_token: 'stop', stop_sequence: 'stop' };

export function generationFromTgi(json: unknown): Generation {
  const r = response.safeParse(json);
  if (!r.success)
    throw new ResponseError(
      `not a TGI /generate response: ${r.error.issues[0]?.path.join('.') || '(root)'}: ${r.error.issues[0]?.message}`,
    );
  const d = r.data.details;
  if (!d)
    throw new ResponseError(
      'the /generate response has no details: the request did not ask for details: true',
    );
  const steps = d.tokens.map((t, i) => {
    if (t.logprob === null) throw new ResponseError(`details.tokens[${i}] has a null logprob`);
    const alternatives = d.top_tokens?.[i] ?? [t];
    const top: TopLogprob[] = alternatives
      .filter((a) => a.logprob !== null)
      .map((a) => ({ token: a.id, logprob: a.logprob as number }))
      .sort((a, b) => b.logprob - a.logprob || a.token - b.token);
    return { token: t.id, logprob: t.logprob, top };
  });
  return {
    tokens: steps.map((s) => s.token),
    steps,
    finishReason: FINISH[d.finish_reason] ?? d.finish_reason,
    text: r.data.generated_text,
  };
}

/**
 * How many tokens one streamed event carries (`--stream-interval N`, the name vLLM and SGLang give
 * the same setting). Real servers send several tokens per event — a stream interval above 1,
 * accepted speculative drafts arriving together, a proxy that buffers — or the whole completion in
 * one event; a client that counts events as tokens is wrong on all of them. The engine steps one
 * token (or one verified draft) at a time; this layer regroups the deltas a generation yields, so
 * the same tokens, text and logprobs arrive in fewer, larger events.
 *
 * N ≥ 1: an event goes out once N tokens are held (the last one may carry fewer); 0: nothing goes
 * out before the finish, so the whole completion is one event.
 */
import type { Delta } from './generation.js';

/** 1: every delta as the engine yields it; 0: the whole completion in one event. */
export type StreamInterval = number;

function join(held: Delta, d: Delta): Delta {
  return {
    text: held.text + d.text,
    tokens: [...held.tokens, ...d.tokens],
    ...(held.promptLogprobs || d.promptLogprobs
      ? { promptLogprobs: held.promptLogprobs ?? d.promptLogprobs }
      : {}),
    ...(d.finish ? { finish: d.finish } : {}),
  };
}

export async function* regroupDeltas(
  deltas: AsyncGenerator<Delta>,
  interval: StreamInterval,
): AsyncGenerator<Delta> {
  if (interval === 1) return yield* deltas;
  let held: Delta | undefined;
  // a client that goes away returns this generator; for-await then returns the engine's, which aborts
  for await (const d of deltas) {
    held = held ? join(held, d) : d;
    const full = interval > 0 && held.tokens.length >= interval;
    // the prompt's log-probabilities (echo) go out when they come: they precede every token
    const promptOnly = held.promptLogprobs !== undefined && held.tokens.length === 0 && !held.text;
    if (held.finish || full || promptOnly) {
      yield held;
      held = undefined;
    }
  }
  if (held) yield held;
}

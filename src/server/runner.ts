/**
 * What the HTTP routes need from a runtime, and nothing more: submit a request and read its events,
 * refuse what the runtime cannot do (before anything is streamed), report counters for /metrics,
 * drain on shutdown. The faultline engine (engine-runner.ts) and llama.cpp (src/llama-cpp/) are
 * peers behind it; the routes, validation, logprob formatting and SSE are the same for both.
 */
import type {
  EmittedToken,
  Finish,
  FinishReason,
  PromptLogprob,
  SequenceRequest,
} from '../engine/sequence.js';

export type GenerationEvent =
  | { kind: 'prompt_logprobs'; entries: PromptLogprob[] }
  /** `finish` is set when the sequence finished in the step that emitted these tokens (one chunk, as vLLM streams it). */
  | { kind: 'tokens'; tokens: EmittedToken[]; finish?: Finish }
  | { kind: 'finish'; finish: Finish };

export interface GenerationStream extends AsyncIterable<GenerationEvent> {
  /** Stops the sequence at its next step; `finish` says how it reports itself (default: reason "abort"). */
  abort(finish?: Finish): void;
}

/** A request field the runtime cannot honour: the route answers 400 with it, never ignores it. */
export interface Refusal {
  message: string;
  param: string;
}

/** One extra Prometheus sample a runtime reports beside the common counters. */
export interface RuntimeSample {
  name: string;
  type: 'counter' | 'gauge';
  help: string;
  value: number;
  /** Extra labels, already formatted (`key="value"`), joined after the model label. */
  labels?: string;
}

export interface RunnerMetrics {
  running: number;
  waiting: number;
  finished: Record<FinishReason, number>;
  promptTokens: number;
  generationTokens: number;
  /** Speculative decoding; `drafts` (verify steps with drafts) only where the runtime counts them. */
  spec: { drafts?: number; draftTokens: number; acceptedTokens: number };
  preemptions?: number;
  /** The paged KV cache, where the runtime has one: vLLM's cache_config_info and prefix-cache counters. */
  kv?: {
    pageSize: number;
    numBlocks: number;
    prefixCaching: boolean;
    usage: number;
    queries: number;
    hits: number;
  };
  /** Runtime-specific figures (engine steps, llama.cpp context shifts, …). */
  extra: RuntimeSample[];
}

export interface Runner {
  /** A request is waiting or running. */
  readonly busy: boolean;
  submit(request: SequenceRequest): GenerationStream;
  /** Why this runtime cannot serve the request as asked (null: it can). */
  refusal(request: SequenceRequest): Refusal | null;
  metrics(): RunnerMetrics;
  /** Resolves when no request is waiting or running. */
  whenIdle(): Promise<void>;
  /** Stops taking requests; waits up to `timeoutMs` for in-flight ones, aborts the rest, frees the runtime. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** An event queue as a GenerationStream: the runtime pushes, the route iterates. A tokens event directly followed by its finish is merged into one. */
export function eventStream(onAbort: (finish?: Finish) => void): {
  stream: GenerationStream;
  push: (e: GenerationEvent) => void;
} {
  const queue: GenerationEvent[] = [];
  let wake: (() => void) | null = null;
  let done = false;
  const push = (e: GenerationEvent) => {
    if (done) return;
    queue.push(e);
    if (e.kind === 'finish' || (e.kind === 'tokens' && e.finish)) done = true;
    wake?.();
    wake = null;
  };
  const stream: GenerationStream = {
    abort: (finish?: Finish) => {
      if (!done) onAbort(finish);
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) {
          const e = queue.shift()!;
          const next = queue[0];
          if (e.kind === 'tokens' && !e.finish && next?.kind === 'finish') {
            queue.shift();
            yield { ...e, finish: next.finish };
            return;
          }
          yield e;
          if (e.kind === 'finish' || (e.kind === 'tokens' && e.finish)) return;
        }
        if (done) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
  return { stream, push };
}

export const NO_FINISHES = (): Record<FinishReason, number> => ({ stop: 0, length: 0, abort: 0, error: 0 });

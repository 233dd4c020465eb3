/** What the HTTP handlers share: the model's facts, the engine driver, limits, metrics, lifecycle. */
import type { Tokenizer } from '../engine/tokenizer.js';
import type { ApiShape, ServeQuirks } from './api-shape.js';
import type { Runner } from './runner.js';
import type { HttpCounters } from './metrics.js';

export interface ServerLimits {
  /** Request bodies larger than this get 413. */
  maxBodyBytes: number;
  /** vLLM's --max-logprobs (default 20): the most alternatives logprobs / top_logprobs / prompt_logprobs may ask for. */
  maxLogprobs: number;
  /** Most prompts in one /v1/completions batch. */
  maxPrompts: number;
}

/** Sampling defaults when a request leaves a field unset (vLLM: generation_config.json, then OpenAI's). */
export interface SamplingDefaults {
  temperature: number;
  topP: number;
  topK: number;
}

import type { LogprobsMode } from '../engine/processed-logprobs.js';

export interface ServerContext {
  /** The served model name (--served-model-name, else the --model argument). */
  modelId: string;
  maxModelLen: number;
  tokenizer: Tokenizer;
  /** null while loading: every endpoint but /health and /metrics answers 503. */
  runner: Runner | null;
  state: 'loading' | 'ready' | 'draining';
  limits: ServerLimits;
  defaults: SamplingDefaults;
  /** --return-tokens-as-token-ids: token strings as "token_id:N" for every request. */
  returnTokensAsTokenIds: boolean;
  /** Which engine's API the server answers in (api-shape.ts). */
  apiShape: ApiShape;
  /** --serve-quirk: departures from the full vLLM API that real servers show (api-shape.ts). */
  quirks: ServeQuirks;
  /** --stream-interval: tokens per streamed event (stream-interval.ts); 0: the whole completion in one. */
  streamInterval: number;
  /** --logprobs-mode: raw (default) or processed log-probabilities in responses. */
  logprobsMode: LogprobsMode;
  /** Unix seconds, for /v1/models `created`. */
  startedAt: number;
  http: HttpCounters;
}

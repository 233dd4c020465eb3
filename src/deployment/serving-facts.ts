/**
 * What a llama.cpp-family server runs with, read into one shape whatever wrote it: llama-server's
 * flags and LLAMA_ARG_* variables (engines/llama-cpp/), Ollama's OLLAMA_* variables and a
 * Modelfile's PARAMETER lines (engines/ollama/). Each fact keeps where it was written and under
 * which spelling, and says when it is only the table's default (nothing in the launch set it).
 * A value known only at run time (`$MODEL`, `${LLAMA_CTX_SIZE}`) keeps its text as written and
 * carries `runtime`, as ArgValue does for vLLM.
 */
import type { SourceLocation } from '../core/errors.js';
import type { RuntimeValue } from './vllm-parse-types.js';

export type FactOrigin = 'flag' | 'env' | 'modelfile' | 'default';

export interface ServingFact<T> {
  value: T;
  /** A flag, an environment variable, a Modelfile PARAMETER, or the table's default (nothing set it). */
  from: FactOrigin;
  /** The spelling that set it: `-c`, `LLAMA_ARG_CTX_SIZE`, `OLLAMA_CONTEXT_LENGTH`, `num_ctx`. */
  option?: string;
  at?: SourceLocation;
  /** The value is known only when the launch runs; `value` then holds the text as written. */
  runtime?: RuntimeValue;
  /** What it replaced: llama-server reads LLAMA_ARG_* first and a flag for the same option wins. */
  overridden?: { value: unknown; option: string; from: FactOrigin; at?: SourceLocation };
}

export type FlashAttention = 'on' | 'off' | 'auto';

/** The facts hazards about llama.cpp-family servers reason about; `args` keeps everything else. */
export interface ServingFacts {
  model?: ServingFact<string>;
  /** Tokens of context (llama-server: all slots together; 0 = the model's trained length). */
  ctxSize?: ServingFact<number | string>;
  /** Server slots / parallel requests (llama-server -1 = auto). */
  parallel?: ServingFact<number | string>;
  flashAttn?: ServingFact<FlashAttention | string>;
  cacheTypeK?: ServingFact<string>;
  cacheTypeV?: ServingFact<string>;
  swaFull?: ServingFact<boolean | string>;
  contextShift?: ServingFact<boolean | string>;
  draftModel?: ServingFact<string>;
  /** Speculative decoding types (`--spec-type`, comma-separated). */
  specType?: ServingFact<string[] | string>;
  /** Tokens drafted per step (`--spec-draft-n-max`; the removed `--draft-max` read as given). */
  draftMax?: ServingFact<number | string>;
  cacheReuse?: ServingFact<number | string>;
  cachePrompt?: ServingFact<boolean | string>;
  /** Layers offloaded to the GPU: a number, `auto` or `all`. */
  nGpuLayers?: ServingFact<number | string>;
}

export const SERVING_FACT_NAMES = [
  'model',
  'ctxSize',
  'parallel',
  'flashAttn',
  'cacheTypeK',
  'cacheTypeV',
  'swaFull',
  'contextShift',
  'draftModel',
  'specType',
  'draftMax',
  'cacheReuse',
  'cachePrompt',
  'nGpuLayers',
] as const satisfies readonly (keyof ServingFacts)[];

/** The value the launch itself gives (a flag, env var or parameter), or undefined when only the default applies. */
export function writtenValue<T>(f: ServingFact<T> | undefined): T | undefined {
  return f && f.from !== 'default' ? f.value : undefined;
}

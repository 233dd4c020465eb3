/**
 * The server of `faultline engine serve --runtime llama.cpp`: the same routes (server/app.ts) over
 * the llama.cpp runner. Byte tokenization and detokenization stay in TypeScript (the GGUF carries
 * faultline's byte vocabulary), so /tokenize, /detokenize, text offsets and stop strings are
 * identical to the faultline runtime's.
 */
import type { Hono } from 'hono';
import { createByteTokenizer } from '../engine/tokenizer.js';
import { createApp } from '../server/app.js';
import { NO_QUIRKS } from '../server/api-shape.js';
import { DEFAULT_LIMITS } from '../server/build.js';
import type { ServerContext } from '../server/context.js';
import { newHttpCounters } from '../server/metrics.js';
import type { LlamaCppServeSettings } from './flags.js';
import { LlamaCppRunner } from './runner.js';
import { openLlamaCpp } from './runtime.js';

export interface BuiltLlamaCppServer {
  app: Hono;
  ctx: ServerContext;
  runner: LlamaCppRunner;
  summary: string;
}

export async function buildLlamaCppServer(
  s: Omit<LlamaCppServeSettings, 'host' | 'port' | 'shutdownSeconds'>,
  modelId: string,
): Promise<BuiltLlamaCppServer> {
  const runtime = await openLlamaCpp(s.model, s.options);
  const runner = new LlamaCppRunner(runtime, s.options);
  const v = runtime.vocabulary;
  // with context shift a request may run past its sequence's cells, up to the model's context length
  const maxModelLen = s.options.contextShift
    ? Math.max(runtime.trainedContextLength, runtime.sequenceContextSize)
    : runtime.sequenceContextSize;
  const ctx: ServerContext = {
    modelId,
    maxModelLen,
    tokenizer: createByteTokenizer(v.bosId, v.eosId),
    runner,
    state: 'ready',
    limits: { ...DEFAULT_LIMITS, maxLogprobs: s.maxLogprobs },
    defaults: { temperature: 1, topP: 1, topK: 0 },
    returnTokensAsTokenIds: false,
    apiShape: 'vllm',
    logprobsMode: 'raw_logprobs',
    startedAt: Math.floor(Date.now() / 1000),
    http: newHttpCounters(),
    // one token per streamed event and vLLM's request handling: the llama.cpp runtime answers as vLLM does
    streamInterval: 1,
    quirks: NO_QUIRKS,
  };
  return { app: createApp(ctx), ctx, runner, summary: runtime.summary };
}

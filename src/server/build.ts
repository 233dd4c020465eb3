/**
 * Assembles a server from a loaded model and resolved settings: the engine (paged KV cache sized for
 * max_num_seqs sequences of max_model_len, or --num-gpu-blocks-override blocks), the scheduler, its async driver, and the hono app.
 * Used by `faultline engine serve`, by tests (in-process, app.request) and by bench/server.ts.
 */
import { NO_QUIRKS, type ApiShape, type ServeQuirks } from './api-shape.js';
import { availableParallelism } from 'node:os';
import { createBackend } from '../engine/emulate.js';
import { Engine } from '../engine/engine.js';
import { ShardedEngine } from '../engine/sharded-engine.js';
import type { StepEngine } from '../engine/step-engine.js';
import type { EngineSettings } from '../engine/flags.js';
import type { Model } from '../engine/model.js';
import type { LogprobsMode } from '../engine/processed-logprobs.js';
import { Scheduler } from '../engine/scheduler.js';
import type { SpecConfig } from '../engine/speculative/config.js';
import type { StateFaults } from '../engine/state-faults.js';
import { createByteTokenizer } from '../engine/tokenizer.js';
import type { Hono } from 'hono';
import { createApp } from './app.js';
import type { SamplingDefaults, ServerContext, ServerLimits } from './context.js';
import { EngineRunner } from './engine-runner.js';
import { newHttpCounters } from './metrics.js';

export interface ServerConfig {
  model: Model;
  modelId: string;
  settings: Pick<EngineSettings, 'attention' | 'precision' | 'kvDtype' | 'pageSize' | 'maxModelLen'> & Partial<Pick<EngineSettings, 'kvSkipLayers'>>;
  spec: SpecConfig | null;
  maxNumSeqs: number;
  /** Tokens per engine step (default: no limit) and whether prompts beyond it are chunked (default true). */
  maxNumBatchedTokens?: number;
  chunkedPrefill?: boolean;
  /** Reduction order depends on the batch (tiny, benign batch-dependent differences). */
  batchVariantNumerics?: boolean;
  /**
   * Engine threads: 2 lets a worker thread run about half the sequences of every step (bit-identical;
   * engine/sharded-engine.ts). Default: 2 where the machine has two cores or more, else 1.
   */
  engineThreads?: number;
  limits?: Partial<ServerLimits>;
  defaults?: Partial<SamplingDefaults>;
  returnTokensAsTokenIds?: boolean;
  /** Reuse the KV blocks of shared prefixes (vLLM's --enable-prefix-caching; default off). */
  prefixCaching?: boolean;
  /** KV budget in blocks (vLLM's --num-gpu-blocks-override): the cache can run out, and sequences are preempted. Default: max_num_seqs full-length sequences. */
  numGpuBlocks?: number;
  /** Stateful fault models (engine/state-faults.ts); none by default. */
  stateFaults?: StateFaults;
  /** `sglang`: answer in SGLang's API shape (api-shape.ts); default `vllm`. */
  apiShape?: ApiShape;
  logprobsMode?: LogprobsMode;
  /** Tokens per streamed event (stream-interval.ts); default 1, 0: the whole completion in one event. */
  streamInterval?: number;
  /** Departures from the full vLLM API (api-shape.ts); none by default. */
  quirks?: ServeQuirks;
}

export interface BuiltServer {
  app: Hono;
  ctx: ServerContext;
  runner: EngineRunner;
  engine: StepEngine;
  /** The two-thread engine (its worker starts with the first step of two sequences, or start()); null on one thread. */
  sharded: ShardedEngine | null;
}

export const DEFAULT_LIMITS: ServerLimits = { maxBodyBytes: 1 << 20, maxLogprobs: 20, maxPrompts: 64 };

export function buildServer(cfg: ServerConfig): BuiltServer {
  const s = cfg.settings;
  const single = new Engine(cfg.model, {
    precision: s.precision,
    kvDtype: s.kvDtype,
    kvSkipLayers: s.kvSkipLayers,
    pageSize: s.pageSize,
    cacheKind: 'paged',
    numBlocks: cfg.numGpuBlocks ?? cfg.maxNumSeqs * Math.ceil(s.maxModelLen / s.pageSize) + cfg.maxNumSeqs,
    prefixCaching: cfg.prefixCaching ?? false,
    stateFaults: cfg.stateFaults,
    backend: createBackend(s.attention),
    numSpeculativeTokens: cfg.spec?.numSpeculativeTokens ?? 0,
    batchVariantNumerics: cfg.batchVariantNumerics ?? false,
  });
  const threads = cfg.engineThreads ?? Math.min(2, availableParallelism());
  // a budget that can run out needs one block manager over every sequence: one thread
  const sharded = threads >= 2 && cfg.numGpuBlocks === undefined && ShardedEngine.supports(single, s.attention) ? new ShardedEngine(single, s.attention) : null;
  const engine: StepEngine = sharded ?? single;
  const scheduler = new Scheduler(engine, {
    spec: cfg.spec,
    maxNumSeqs: cfg.maxNumSeqs,
    maxModelLen: s.maxModelLen,
    maxNumBatchedTokens: cfg.maxNumBatchedTokens,
    chunkedPrefill: cfg.chunkedPrefill,
    stateFaults: cfg.stateFaults,
  });
  const runner = new EngineRunner(scheduler);
  const c = cfg.model.config;
  const ctx: ServerContext = {
    modelId: cfg.modelId,
    maxModelLen: s.maxModelLen,
    tokenizer: createByteTokenizer(c.bosTokenId, c.eosTokenId),
    runner,
    state: 'ready',
    limits: { ...DEFAULT_LIMITS, ...cfg.limits },
    defaults: { temperature: 1, topP: 1, topK: 0, ...cfg.defaults },
    returnTokensAsTokenIds: cfg.returnTokensAsTokenIds ?? false,
    apiShape: cfg.apiShape ?? 'vllm',
    logprobsMode: cfg.logprobsMode ?? 'raw_logprobs',
    streamInterval: cfg.streamInterval ?? 1,
    quirks: cfg.quirks ?? NO_QUIRKS,
    startedAt: Math.floor(Date.now() / 1000),
    http: newHttpCounters(),
  };
  return { app: createApp(ctx), ctx, runner, engine, sharded };
}

/**
 * An engine for one sequence at a time, as resolved `engine` flags describe it (engine/flags.ts):
 * paged cache of exactly one max_model_len sequence, the emulated attention backend (or the one given,
 * e.g. with an onCall recorder), k speculative tokens. `faultline engine generate` and the in-process
 * benches build theirs this way.
 */
import type { AttentionBackend } from './attention/backend.js';
import { createBackend } from './emulate.js';
import { Engine } from './engine.js';
import type { EngineSettings } from './flags.js';
import type { Model } from './model.js';

export function singleSequenceEngine(model: Model, s: EngineSettings, o: { backend?: AttentionBackend; numSpeculativeTokens?: number } = {}): Engine {
  return new Engine(model, {
    precision: s.precision,
    kvDtype: s.kvDtype,
    kvSkipLayers: s.kvSkipLayers,
    pageSize: s.pageSize,
    cacheKind: 'paged',
    numBlocks: Math.ceil(s.maxModelLen / s.pageSize) + 1,
    backend: o.backend ?? createBackend(s.attention),
    numSpeculativeTokens: o.numSpeculativeTokens ?? 0,
  });
}

/**
 * What the llama.cpp runtime reports beyond vLLM's common counters, for /metrics: context shifts
 * done, sequences per llama_decode batch, prefix tokens reused, draft tokens validated and refuted,
 * and its resolved settings (so a matrix cell can check what it launched).
 */
import type { FinishReason } from '../engine/sequence.js';
import type { RuntimeSample } from '../server/runner.js';
import type { BatchCounters } from './batch-strategy.js';
import type { LlamaCppOptions } from './options.js';

export interface LlamaCppCounters {
  finished: Record<FinishReason, number>;
  /** Prompt tokens evaluated (not those found in the sequence's cache). */
  promptTokens: number;
  generationTokens: number;
  /** Prompt tokens looked up in a sequence's cached tokens, and found there. */
  prefixQueries: number;
  prefixHits: number;
  /** Evaluations during which llama.cpp erased the oldest tokens of a full sequence. */
  shifts: number;
  draftValidated: number;
  draftRefuted: number;
}

/** What the created context reports about itself (not what was asked for). */
export interface ContextFacts {
  /** KV cells per sequence. */
  capacity: number;
  /** Threads the context evaluates with. */
  threads: number;
  /** Tokens per llama_decode. */
  batchSize: number;
}

export function runtimeSamples(
  c: LlamaCppCounters,
  batch: BatchCounters,
  o: LlamaCppOptions,
  facts: ContextFacts,
): RuntimeSample[] {
  const settings = `cache_type_k="${o.cacheTypeK}",cache_type_v="${o.cacheTypeV}",flash_attn="${o.flashAttn}",swa_full="${o.swaFull}",parallel="${o.parallel}",n_ctx_seq="${facts.capacity}",n_batch="${facts.batchSize}",context_shift="${o.contextShift}",threads="${facts.threads}"`;
  return [
    {
      name: 'faultline:llama_cpp_config_info',
      type: 'gauge',
      help: 'The llama.cpp runtime settings, as labels.',
      value: 1,
      labels: settings,
    },
    {
      name: 'vllm:prefix_cache_queries_total',
      type: 'counter',
      help: "Prompt tokens looked up in a sequence's cached tokens.",
      value: c.prefixQueries,
    },
    {
      name: 'vllm:prefix_cache_hits_total',
      type: 'counter',
      help: "Prompt tokens found in a sequence's cached tokens (not evaluated again).",
      value: c.prefixHits,
    },
    {
      name: 'faultline:llama_cpp_context_shifts_total',
      type: 'counter',
      help: 'Evaluations in which a full sequence erased its oldest tokens (context shift).',
      value: c.shifts,
    },
    {
      name: 'faultline:llama_cpp_batches_total',
      type: 'counter',
      help: 'llama_decode batches dispatched.',
      value: batch.batches,
    },
    {
      name: 'faultline:llama_cpp_batch_sequences_total',
      type: 'counter',
      help: 'Sequences summed over batches (divide by batches_total: sequences per batch).',
      value: batch.sequences,
    },
    {
      name: 'faultline:llama_cpp_batch_sequences_max',
      type: 'gauge',
      help: 'The most sequences one batch carried.',
      value: batch.maxSequences,
    },
    {
      name: 'faultline:llama_cpp_draft_tokens_validated_total',
      type: 'counter',
      help: 'Draft tokens the target confirmed.',
      value: c.draftValidated,
    },
    {
      name: 'faultline:llama_cpp_draft_tokens_refuted_total',
      type: 'counter',
      help: 'Draft tokens the target rejected.',
      value: c.draftRefuted,
    },
  ];
}

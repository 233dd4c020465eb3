/**
 * The llama.cpp runtime's settings, under llama-server's own option names and short forms, so a
 * llama-server launch line reads the same here. Each maps onto node-llama-cpp 3.21.1's option of
 * the same effect (research llama-cpp-engine.md §2); what node-llama-cpp cannot set is refused.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { PlantedFaults } from './planted-faults.js';

/** KV cache types llama-server accepts for --cache-type-k/-v (llama.cpp v0.4.0 common/arg.cpp kv_cache_types), as node-llama-cpp's GgmlType keys. */
export const CACHE_TYPES = ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1'] as const;
export type CacheType = (typeof CACHE_TYPES)[number];
export const FLASH_ATTN = ['on', 'off', 'auto'] as const;
export type FlashAttn = (typeof FLASH_ATTN)[number];
/**
 * llama-server's --spec-type values this runtime has: none, and ngram-simple (prompt lookup: the
 * last generated n-gram looked up in the sequence's own tokens, node-llama-cpp's
 * InputLookupTokenPredictor), and draft-simple (the --model-draft drafts). A draft model drafts here
 * whatever --spec-type says, as in llama-server builds before --spec-type; newer builds need
 * draft-simple for it, so a launch written for them reads the same here.
 */
export const SPEC_TYPES = ['none', 'draft-simple', 'ngram-simple'] as const;
export type SpecType = (typeof SPEC_TYPES)[number];

export interface LlamaCppOptions {
  /** Total KV cells over all sequences (llama-server's -c: each of the --parallel sequences gets ctx-size / parallel). */
  ctxSize: number | null;
  parallel: number;
  flashAttn: FlashAttn;
  cacheTypeK: CacheType;
  cacheTypeV: CacheType;
  swaFull: boolean;
  /** null: node-llama-cpp's default (512, or less for a small context). */
  batchSize: number | null;
  contextShift: boolean;
  modelDraft: string | null;
  draftMax: number;
  draftMin: number;
  /** Least probability a drafted token needs for drafting to go on (node-llama-cpp's minConfidence; 0: always draft). */
  draftPMin: number;
  specType: SpecType;
  /** ngram-simple: the generated tokens looked up (llama-server's --spec-ngram-simple-size-n). */
  ngramSizeN: number;
  /** ngram-simple: the most tokens one lookup drafts (--spec-ngram-simple-size-m). */
  ngramSizeM: number;
  threads: number;
  /** Reuse the longest cached prefix of a free sequence (llama-server's cache_prompt, on by default there too). */
  cacheReuse: boolean;
  /** Faults planted on purpose (planted-faults.ts); none unless --planted-fault names them. */
  plantedFaults: PlantedFaults;
}

export const DEFAULT_OPTIONS: LlamaCppOptions = {
  ctxSize: null,
  parallel: 4,
  flashAttn: 'auto',
  cacheTypeK: 'f16',
  cacheTypeV: 'f16',
  swaFull: false,
  batchSize: null,
  contextShift: false,
  modelDraft: null,
  draftMax: 16,
  draftMin: 0,
  // node-llama-cpp's default (llama-server's own is 0.75)
  draftPMin: 0.6,
  specType: 'none',
  // llama-server's defaults for ngram-simple (llama.cpp v0.4.0 common/common.h)
  ngramSizeN: 12,
  ngramSizeM: 48,
  // two threads decode 10–15× slower on the shared 2-core machines (research §7)
  threads: 1,
  cacheReuse: true,
  plantedFaults: {},
};

/** A drafter is attached: tokens come from node-llama-cpp's speculative loop, greedily. */
export const speculates = (o: LlamaCppOptions) => o.modelDraft !== null || o.specType === 'ngram-simple';

export const isQuantized = (t: CacheType) => t !== 'f32' && t !== 'f16' && t !== 'bf16';

/** Checks that need no model: a quantized V cache needs flash attention (llama.cpp refuses it at context creation otherwise). */
export function checkOptions(o: LlamaCppOptions, at: (flag: string) => SourceLocation | undefined): void {
  if (isQuantized(o.cacheTypeV) && o.flashAttn === 'off')
    throw new UserError(
      `--cache-type-v ${o.cacheTypeV} is a quantized V cache, and llama.cpp needs flash attention for it ("quantized V cache requires flash_attn")`,
      {
        code: 'E_ENGINE_FLAG',
        at: at('flash_attn') ?? at('cache_type_v'),
        hint: 'use --flash-attn on (or auto), or an unquantized --cache-type-v (f16, bf16, f32)',
      },
    );
  if (o.specType === 'draft-simple' && o.modelDraft === null)
    throw new UserError('--spec-type draft-simple drafts with a draft model, and none is given', {
      code: 'E_USAGE',
      at: at('spec_type'),
      hint: 'pass --model-draft FILE (or --spec-type none)',
    });
  if (o.specType === 'ngram-simple' && o.modelDraft !== null)
    throw new UserError(
      `--spec-type ${o.specType} and --model-draft are two drafters, and a node-llama-cpp sequence takes one`,
      { code: 'E_USAGE', at: at('spec_type') ?? at('model_draft'), hint: 'pass one of them' },
    );
  if (o.ctxSize !== null && o.ctxSize < o.parallel)
    throw new UserError(
      `--ctx-size ${o.ctxSize} is smaller than --parallel ${o.parallel}: each sequence gets ctx-size / parallel cells`,
      {
        code: 'E_USAGE',
        at: at('ctx_size'),
        hint: 'raise --ctx-size or lower --parallel',
      },
    );
}

/**
 * vLLM's `--speculative-config` (JSON or dotted keys) → the engine's speculative settings.
 * Field names, defaults and validation follow vllm/config/speculative.py (research vllm-flashinfer.md §3,
 * attention-numerics.md §3.3):
 *   - ngram:  prompt_lookup_min/max default to each other, both 5 when neither is given;
 *             num_speculative_tokens is required.
 *   - suffix: num_speculative_tokens defaults to suffix_decoding_max_tree_depth (24) and is a maximum;
 *             suffix_decoding_max_spec_factor 1.0, suffix_decoding_min_token_prob 0.1.
 *   - mtp:    the model's own MTP head; num_speculative_tokens defaults to n_predict
 *             (num_nextn_predict_layers) and a larger k chains the head. Legacy model-specific names
 *             (deepseek_mtp, gemma4_mtp, …) are accepted as mtp with a note, as vLLM does.
 * Draft models, EAGLE, Medusa and the others are not implemented: an error, never a silent fallback.
 */
import { UserError, type SourceLocation } from '../../core/errors.js';
import type { ArgValue } from '../../deployment/vllm-args.js';
import type { SpecFaultModel } from './penalties-dropped.js';

export type SpecMethod = 'ngram' | 'suffix' | 'mtp';

export interface SuffixSettings {
  /** Longest pattern (and tree depth) matched against the sequence. */
  maxTreeDepth: number;
  /** Draft length ≤ max_spec_factor · matched length. */
  maxSpecFactor: number;
  /** Stop drafting when the estimated probability of the whole draft falls below this. */
  minTokenProb: number;
}

export interface SpecConfig {
  method: SpecMethod;
  /** k: drafts per step (a maximum for suffix and ngram, whose drafts may be shorter). */
  numSpeculativeTokens: number;
  promptLookupMin: number;
  promptLookupMax: number;
  suffix: SuffixSettings;
  /** A fault model of the speculative path (penalties-dropped.ts); none by default. */
  faultModel?: SpecFaultModel;
  /** What the user should know (aliases resolved, defaults chosen). */
  notes: string[];
}

/** The rejection sampler's MAX_SPEC_LEN in recent vLLM. */
export const MAX_SPEC_LEN = 128;

const MTP_ALIASES = ['deepseek_mtp', 'mimo_mtp', 'glm4_moe_mtp', 'ernie_mtp', 'qwen3_next_mtp', 'qwen3_5_mtp', 'longcat_flash_mtp', 'gemma4_mtp'];
const NOT_IMPLEMENTED = ['eagle', 'eagle3', 'medusa', 'mlp_speculator', 'draft_model', 'custom_class', 'ngram_gpu', 'dflash', 'dspark', 'extract_hidden_states'];
const KEYS = [
  'method',
  'num_speculative_tokens',
  'prompt_lookup_min',
  'prompt_lookup_max',
  'suffix_decoding_max_tree_depth',
  'suffix_decoding_max_spec_factor',
  'suffix_decoding_min_token_prob',
  'suffix_decoding_max_cached_requests',
  'rejection_sample_method',
  'draft_sample_method',
  'enforce_eager',
  'disable_padded_drafter_batch',
];

function fail(message: string, at: SourceLocation | undefined, hint: string): never {
  throw new UserError(message, { code: 'E_SPEC_CONFIG', at, hint });
}

/** `--speculative-config` value (already JSON-merged by the vLLM argv emulation) → SpecConfig; null when absent. */
export function resolveSpecConfig(arg: ArgValue | undefined, model: { numMtpLayers: number; hasMtpHead: boolean }): SpecConfig | null {
  if (!arg || arg.value === null || arg.value === undefined) return null;
  const v = arg.value;
  if (typeof v !== 'object' || Array.isArray(v))
    fail('--speculative-config must be a JSON object', arg.at, `e.g. --speculative-config '{"method": "mtp", "num_speculative_tokens": 7}'`);
  const o = v as Record<string, unknown>;
  const at = (key: string) => arg.keyAt?.[key] ?? arg.at;
  for (const key of Object.keys(o))
    if (!KEYS.includes(key))
      fail(
        `speculative_config.${key} is not implemented by the faultline engine`,
        at(key),
        key === 'model' ? 'the engine has no draft models; use method ngram, suffix or mtp (the checkpoint\'s MTP head)' : `implemented keys: ${KEYS.join(', ')}`,
      );
  const notes: string[] = [];
  const rawMethod = o.method;
  if (typeof rawMethod !== 'string') fail('speculative_config.method is required (ngram, suffix or mtp)', at('method'), `e.g. --speculative-config.method=mtp`);
  let method: SpecMethod;
  if (rawMethod === 'ngram' || rawMethod === 'suffix' || rawMethod === 'mtp') method = rawMethod;
  else if (MTP_ALIASES.includes(rawMethod)) {
    method = 'mtp';
    notes.push(`speculative method ${rawMethod} is deprecated and replaced with mtp (as in vLLM)`);
  } else if (NOT_IMPLEMENTED.includes(rawMethod))
    fail(`speculative method ${rawMethod} is not implemented by the faultline engine`, at('method'), 'use ngram, suffix or mtp');
  else fail(`unknown speculative method ${JSON.stringify(rawMethod)}`, at('method'), 'use ngram, suffix or mtp');

  const int = (key: string, min: number): number | undefined => {
    const x = o[key];
    if (x === undefined || x === null) return undefined;
    const n = typeof x === 'string' && x.trim() !== '' ? Number(x) : x;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min) fail(`speculative_config.${key} must be an integer ≥ ${min}, got ${JSON.stringify(x)}`, at(key), `e.g. --speculative-config.${key}=${Math.max(min, 5)}`);
    return n;
  };
  const num = (key: string, lo: number, hi: number, fallback: number): number => {
    const x = o[key];
    if (x === undefined || x === null) return fallback;
    const n = typeof x === 'string' && x.trim() !== '' ? Number(x) : x;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < lo || n > hi) fail(`speculative_config.${key} must be a number in [${lo}, ${hi}], got ${JSON.stringify(x)}`, at(key), `default ${fallback}`);
    return n;
  };
  const only = (key: string, allowed: string) => {
    if (o[key] !== undefined && o[key] !== allowed) fail(`speculative_config.${key}=${JSON.stringify(o[key])} is not implemented`, at(key), `the engine implements ${key}=${allowed}`);
  };
  only('rejection_sample_method', 'standard');
  only('draft_sample_method', 'greedy');
  for (const key of ['enforce_eager', 'disable_padded_drafter_batch'])
    if (o[key] !== undefined) notes.push(`speculative_config.${key} accepted without effect (no CUDA graphs, drafts are never padded)`);

  let k = int('num_speculative_tokens', 1);
  const maxTreeDepth = int('suffix_decoding_max_tree_depth', 1) ?? 24;
  if (o.suffix_decoding_max_cached_requests !== undefined) {
    int('suffix_decoding_max_cached_requests', 0);
    notes.push('speculative_config.suffix_decoding_max_cached_requests accepted without effect (the engine keeps no cross-request suffix tree)');
  }
  if (method === 'ngram' && k === undefined)
    fail('num_speculative_tokens must be provided for method ngram', arg.at, 'e.g. --speculative-config.num_speculative_tokens=4');
  if (method === 'suffix' && k === undefined) {
    k = maxTreeDepth;
    notes.push(`num_speculative_tokens defaults to suffix_decoding_max_tree_depth (${maxTreeDepth}) for suffix decoding`);
  }
  if (method === 'mtp') {
    if (!model.hasMtpHead) fail('speculative method mtp needs an MTP head, and this checkpoint has none (mtp.* tensors)', at('method'), 'use ngram or suffix');
    if (k === undefined) {
      k = Math.max(1, model.numMtpLayers);
      notes.push(`num_speculative_tokens defaults to the model's n_predict (${k})`);
    }
  }
  if (k! > MAX_SPEC_LEN) fail(`num_speculative_tokens ${k} exceeds the rejection sampler's limit (${MAX_SPEC_LEN})`, at('num_speculative_tokens'), `use at most ${MAX_SPEC_LEN}`);

  let min = int('prompt_lookup_min', 1);
  let max = int('prompt_lookup_max', 1);
  if (min === undefined && max === undefined) min = max = 5;
  else if (min === undefined) min = max;
  else if (max === undefined) max = min;
  if (min! > max!) fail(`prompt_lookup_min (${min}) must be ≤ prompt_lookup_max (${max})`, at('prompt_lookup_min'), 'swap them or make them equal');

  return {
    method,
    numSpeculativeTokens: k!,
    promptLookupMin: min!,
    promptLookupMax: max!,
    suffix: {
      maxTreeDepth,
      maxSpecFactor: num('suffix_decoding_max_spec_factor', 0, 1e6, 1.0),
      minTokenProb: num('suffix_decoding_min_token_prob', 0, 1, 0.1),
    },
    notes,
  };
}

/** A spec config built in code (tests, benchmarks): defaults as from the CLI. */
export function specConfig(method: SpecMethod, k: number, over: Partial<Omit<SpecConfig, 'suffix'>> & { suffix?: Partial<SuffixSettings> } = {}): SpecConfig {
  return {
    method,
    numSpeculativeTokens: k,
    promptLookupMin: over.promptLookupMin ?? 5,
    promptLookupMax: over.promptLookupMax ?? 5,
    suffix: { maxTreeDepth: 24, maxSpecFactor: 1.0, minTokenProb: 0.1, ...over.suffix },
    notes: over.notes ?? [],
  };
}

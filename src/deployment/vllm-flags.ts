/**
 * What a vLLM flag is, as data: the shape of one entry of a flag table and the lookups the argv
 * emulation needs (exact option strings, `--no-x`, argparse prefix abbreviations, "did you mean").
 *
 * The tables themselves are generated from vLLM's own source, one per minor release
 * (data/vllm-flags/<minor>.json, scripts/vllm-flags/); vllm-flag-table.ts reads them and picks
 * the one for the launch's vLLM version. Here stay the few flags no table holds (argparse's
 * --help, the speculative flags of vLLM ≤ 0.8.2) and the value vocabularies hazards reason about.
 *
 * Each entry is one argparse destination (`dest`, underscores). Its long option is always
 * `--<dest with dashes>`; `aliases` adds the other spellings vLLM registers (short ones keep their
 * single dash: `-tp`, `-ac`). `kind` says how argparse consumes and converts the value:
 *   bool     → `--x` is true; BooleanOptionalAction also gives `--no-x` (false); no value token;
 *   string / int / float → one value (`--x v` or `--x=v`);
 *   optional → nargs='?': the next token is its value unless it looks like an option;
 *   json     → one value parsed as a JSON object (dataclass- or dict-typed fields); dotted sub-keys
 *              (`--x.key v`) are collected into an object first;
 *   list     → nargs='+' (one or more values up to the next option);
 *   choice   → one value from `choices`.
 * The engine extends a table through `extraFlags` so one grammar serves both.
 */

export type FlagKind = 'bool' | 'string' | 'int' | 'float' | 'json' | 'list' | 'choice' | 'optional';

export interface FlagSpec {
  /** argparse dest: `kv_cache_dtype`. */
  dest: string;
  kind: FlagKind;
  /** Extra option strings besides `--<dest-with-dashes>`, e.g. `-tp`, `--attention-backend`. */
  aliases?: readonly string[];
  /** For 'choice': the accepted values (compared after `caseInsensitive` upper-casing). */
  choices?: readonly string[];
  /**
   * Unset: the table's choices; another value is vLLM's error when the table is the launch's own
   * release, else an FL000 flag problem (a newer release may have it). 'strict': always an error
   * (faultline's own flags). 'open': the list is incomplete, so another value only earns a note.
   */
  choicePolicy?: 'strict' | 'open';
  /** Values are matched and stored upper-cased (attention backend names). */
  caseInsensitive?: boolean;
  /** int parsed like vLLM's human_readable_int: `1k` = 1000, `1K` = 1024, `25.6k` = 25600. */
  humanReadableInt?: boolean;
  /** int that also accepts `auto` / `-1` (both stored as -1), like human_readable_int_or_auto. */
  acceptsAuto?: boolean;
  /** `--x` is a plain store_true switch: there is no `--no-x`. */
  noNegation?: boolean;
  /** action='append': every occurrence adds a value (a list), none replaces an earlier one. */
  append?: boolean;
  /** json flags typed `dict | str`: a value that is not JSON is kept as a string. */
  orString?: boolean;
  /** Said (as a note) whenever the flag is used: deprecated, legacy or removed flags. */
  note?: string;
  /** The flag exists only up to this vLLM release (legacy flags kept for old launches). */
  legacyUntil?: string;
  /** The value is a credential: reports must redact it. */
  secret?: boolean;
  help?: string;
}

/** `-` → `_`: the argparse dest of a long option name (without its leading dashes). */
export function destOf(optionName: string): string {
  return optionName.replace(/^-+/, '').replace(/-/g, '_');
}

/** The long option string of a dest: `kv_cache_dtype` → `--kv-cache-dtype`. */
export function longOptionOf(dest: string): string {
  return `--${dest.replace(/_/g, '-')}`;
}

// ---------------------------------------------------------------------------------------------
// Value vocabularies that matter for hazards.

/** `CacheDType` in vllm/config/cache.py: v0.23.0 plus the two values main added (vllm-flashinfer.md §4). */
// prettier-ignore
export const KV_CACHE_DTYPES = [
  'auto', 'float16', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_ds_mla',
  'turboquant_k8v4', 'turboquant_4bit_nc', 'turboquant_k3v4_nc', 'turboquant_3bit_nc',
  'int8_per_token_head', 'fp8_per_token_head', 'nvfp4', 'int4_per_token_head', 'nvfp4_4over6',
] as const;

/** `AttentionBackendEnum` names: v0.23.0 plus those main added (vllm-flashinfer.md §2.3). */
// prettier-ignore
export const ATTENTION_BACKENDS = [
  'FLASH_ATTN', 'FLASH_ATTN_DIFFKV', 'TRITON_ATTN', 'ROCM_ATTN', 'ROCM_AITER_MLA', 'ROCM_AITER_TRITON_MLA',
  'ROCM_AITER_FA', 'ROCM_AITER_MLA_SPARSE', 'XPU_MLA_SPARSE', 'TORCH_SDPA', 'FLASHINFER', 'FLASHINFER_MLA',
  'TOKENSPEED_MLA', 'FLASHINFER_MLA_SPARSE', 'TRITON_MLA', 'CUTLASS_MLA', 'FLASHMLA', 'FLASHMLA_SPARSE',
  'FLASHMLA_SPARSE_DSV4', 'FLASHINFER_MLA_SPARSE_DSV4', 'ROCM_FLASHMLA_SPARSE_DSV4', 'FLASH_ATTN_MLA',
  'NO_ATTENTION', 'FLEX_ATTENTION', 'ROCM_AITER_UNIFIED_ATTN', 'CPU_ATTN', 'TURBOQUANT', 'CUSTOM',
  'TRITON_ATTN_DIFFKV', 'FLASHINFER_MLA_SPARSE_SM120', 'FLASH_ATTN_MLA_SPARSE', 'MINIMAX_M3_SPARSE',
  'CUTLASS_MSA', 'TRITON_MSA', 'HPC_ATTN', 'CPU_MLA',
  // "auto" means automatic selection (the validator maps it to None).
  'AUTO',
] as const;

/**
 * Names older vLLM releases accepted that v0.23.0 no longer has: accepted with a note rather than
 * rejected, because the launch may target an old release. The `_VLLM_V1` suffix was dropped by
 * vllm-project/vllm PR #25489 (Sept 2025), which strips it with a warning.
 */
// prettier-ignore
export const HISTORICAL_ATTENTION_BACKENDS = [
  'XFORMERS', 'ROCM_FLASH', 'PALLAS', 'IPEX', 'TREE_ATTN',
  'FLASH_ATTN_VLLM_V1', 'FLASHINFER_VLLM_V1', 'TRITON_ATTN_VLLM_V1',
] as const;

// ---------------------------------------------------------------------------------------------
// Flags no generated table holds: argparse's own --help, and the pre-0.8.3 speculative flags
// (vLLM's tags v0.8.0–v0.8.2 still register them; v0.8.3 removed them; the 0.8 table is v0.8.5).

const LEGACY_SPEC = 'legacy flag of vLLM ≤ 0.8.2 (before --speculative-config); vLLM 0.8.3 and later reject it';
const legacy = (dest: string, kind: FlagKind): FlagSpec => ({ dest, kind, note: LEGACY_SPEC, legacyUntil: '0.8.2' });

export const PARSER_FLAGS: readonly FlagSpec[] = [
  { dest: 'help', kind: 'bool', aliases: ['-h'], note: 'vLLM prints its help and exits: no server starts' },
];

export const LEGACY_FLAGS: readonly FlagSpec[] = [
  legacy('speculative_model', 'string'),
  legacy('num_speculative_tokens', 'int'),
  legacy('speculative_model_quantization', 'string'),
  legacy('speculative_draft_tensor_parallel_size', 'int'),
  legacy('speculative_max_model_len', 'int'),
  legacy('speculative_disable_by_batch_size', 'int'),
  legacy('ngram_prompt_lookup_max', 'int'),
  legacy('ngram_prompt_lookup_min', 'int'),
];

// ---------------------------------------------------------------------------------------------
// Lookup.

export interface FlagMatch {
  spec: FlagSpec;
  /** The `--no-x` form of a bool flag. */
  negated: boolean;
  /** The option string matched, when the token was an abbreviation of it (argparse allow_abbrev). */
  expandedFrom?: string;
}

export interface FlagIndex {
  /** Exact option string (`--kv-cache-dtype`, `-tp`, `--no-enforce-eager`) → its flag. */
  lookup(option: string): FlagMatch | undefined;
  /**
   * argparse's prefix matching of a long option (allow_abbrev, on in vLLM's parser): the one option
   * string that starts with `prefix`, or every candidate when more than one does.
   */
  abbreviation(prefix: string): { match: FlagMatch; option: string } | { ambiguous: string[] } | undefined;
  /** The closest known option string, for "did you mean …?" hints. */
  suggest(option: string): string | undefined;
  /** Every option string, for help and tests. */
  options(): string[];
}

/** Every option string of a flag: `--dest`, its aliases, and `--no-dest` for negatable switches. */
export function optionStrings(spec: FlagSpec): string[] {
  const long = longOptionOf(spec.dest);
  const out = [long, ...(spec.aliases ?? [])];
  if (spec.kind === 'bool' && !spec.noNegation) out.push(`--no-${long.slice(2)}`);
  return out;
}

/**
 * Index a table (plus the caller's extra flags, which win over a table flag of the same dest or
 * option string) by every option string, including `--no-x` for negatable bool flags.
 */
export function buildFlagIndex(table: readonly FlagSpec[], extraFlags: readonly FlagSpec[] = []): FlagIndex {
  const byOption = new Map<string, FlagMatch>();
  const add = (spec: FlagSpec): void => {
    for (const opt of optionStrings(spec)) byOption.set(opt, { spec, negated: opt.startsWith('--no-') && opt !== longOptionOf(spec.dest) });
  };
  const extraDests = new Set(extraFlags.map((x) => x.dest));
  for (const spec of table) if (!extraDests.has(spec.dest)) add(spec);
  for (const spec of extraFlags) add(spec);
  return {
    lookup: (option) => byOption.get(option),
    abbreviation: abbreviationMatcher(byOption),
    suggest: (option) => closest(option, [...byOption.keys()]),
    options: () => [...byOption.keys()],
  };
}

/** argparse's allow_abbrev over an index's option strings: exactly one long option that starts with the prefix, else "ambiguous option". */
export function abbreviationMatcher(byOption: ReadonlyMap<string, FlagMatch>): FlagIndex['abbreviation'] {
  const longOptions = [...byOption.keys()].filter((o) => o.startsWith('--'));
  return (prefix) => {
    if (!prefix.startsWith('--') || prefix.length < 3) return undefined;
    const hits = longOptions.filter((o) => o.startsWith(prefix));
    if (hits.length === 0) return undefined;
    if (hits.length === 1) {
      const match = byOption.get(hits[0]);
      return match ? { match: { ...match, expandedFrom: prefix }, option: hits[0] } : undefined;
    }
    return { ambiguous: hits };
  };
}

/** Levenshtein distance, capped work: options are short. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, k) => k);
  for (let x = 1; x <= a.length; x++) {
    const cur = [x];
    for (let y = 1; y <= b.length; y++) {
      cur[y] = Math.min(prev[y] + 1, cur[y - 1] + 1, prev[y - 1] + (a[x - 1] === b[y - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The candidate nearest to `word` when it is near enough to be a plausible typo: within a third of
 * the word's length, or a candidate that starts with the word (argparse-style abbreviation).
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const cand of candidates) {
    const d = editDistance(word, cand);
    if (d < bestScore) {
      best = cand;
      bestScore = d;
    }
  }
  if (best !== undefined && bestScore <= Math.max(2, Math.floor(word.length / 3))) return best;
  const prefixed = candidates.filter((cand) => cand.startsWith(word) && word.length >= 4);
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

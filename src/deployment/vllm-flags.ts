/**
 * The vLLM `serve` / `api_server` flags faultline understands, as data.
 *
 * Each entry is one argparse destination (`dest`, underscores). Its long option is always
 * `--<dest with dashes>`; `aliases` adds the other spellings vLLM registers (short ones keep their
 * single dash: `-tp`, `-ac`). `kind` says how argparse consumes and converts the value:
 *   bool   → argparse.BooleanOptionalAction: `--x` is true, `--no-x` is false, no value token;
 *   string / int / float → one value (`--x v` or `--x=v`);
 *   json   → one value parsed as a JSON object (dataclass- or dict-typed fields); dotted sub-keys
 *            (`--x.key v`) are collected into an object first;
 *   list   → nargs='+' (one or more values up to the next option);
 *   choice → one value from `choices`.
 * Sources: research/configs-and-cli.md §2 (grammar, aliases), research/vllm-flashinfer.md §2–§4
 * (attention backends, KV-cache dtypes), and the flags seen in the launch-config fixtures.
 * The engine extends the table through `extraFlags` so one grammar serves both.
 */

export type FlagKind = 'bool' | 'string' | 'int' | 'float' | 'json' | 'list' | 'choice';

export interface FlagSpec {
  /** argparse dest: `kv_cache_dtype`. */
  dest: string;
  kind: FlagKind;
  /** Extra option strings besides `--<dest-with-dashes>`, e.g. `-tp`, `--attention-backend`. */
  aliases?: readonly string[];
  /** For 'choice': the accepted values (compared after `caseInsensitive` upper-casing). */
  choices?: readonly string[];
  /** 'strict' (default): another value is an error, as in vLLM. 'open': the list is incomplete, so another value only earns a note. */
  choicePolicy?: 'strict' | 'open';
  /** Values are matched and stored upper-cased (attention backend names). */
  caseInsensitive?: boolean;
  /** int parsed like vLLM's human_readable_int: `1k` = 1000, `1K` = 1024, `25.6k` = 25600. */
  humanReadableInt?: boolean;
  /** int that also accepts `auto` / `-1` (both stored as -1), like human_readable_int_or_auto. */
  acceptsAuto?: boolean;
  /** Said (as a note) whenever the flag is used: legacy, removed or fork-only flags. */
  note?: string;
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

const DTYPES = ['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'] as const;

/** Quantization methods seen in vLLM releases; vLLM's list grows often, so others only earn a note. */
// prettier-ignore
const QUANTIZATION_METHODS = [
  'fp8', 'awq', 'awq_marlin', 'gptq', 'gptq_marlin', 'gptq_marlin_24', 'gptq_bitblas', 'bitblas',
  'bitsandbytes', 'compressed-tensors', 'modelopt', 'modelopt_fp4', 'modelopt_mxfp8', 'modelopt_mixed', 'mxfp4',
  'gguf', 'fbgemm_fp8', 'marlin', 'deepspeedfp', 'tpu_int8', 'experts_int8', 'ptpc_fp8', 'qqq', 'hqq',
  'ipex', 'quark', 'moe_wna16', 'torchao', 'auto-round', 'rtn', 'inc', 'petit_nvfp4', 'fp_quant', 'aqlm',
] as const;

// prettier-ignore
const LOAD_FORMATS = [
  'auto', 'pt', 'safetensors', 'npcache', 'dummy', 'tensorizer', 'sharded_state', 'gguf', 'bitsandbytes',
  'mistral', 'runai_streamer', 'runai_streamer_sharded', 'fastsafetensors',
] as const;

// ---------------------------------------------------------------------------------------------
// The table. Helpers keep one flag per line.

const b = (dest: string, more: Partial<FlagSpec> = {}): FlagSpec => ({ dest, kind: 'bool', ...more });
const s = (dest: string, more: Partial<FlagSpec> = {}): FlagSpec => ({ dest, kind: 'string', ...more });
const i = (dest: string, more: Partial<FlagSpec> = {}): FlagSpec => ({ dest, kind: 'int', ...more });
const f = (dest: string, more: Partial<FlagSpec> = {}): FlagSpec => ({ dest, kind: 'float', ...more });
const j = (dest: string, more: Partial<FlagSpec> = {}): FlagSpec => ({ dest, kind: 'json', ...more });
const l = (dest: string, more: Partial<FlagSpec> = {}): FlagSpec => ({ dest, kind: 'list', ...more });
const c = (dest: string, choices: readonly string[], more: Partial<FlagSpec> = {}): FlagSpec => ({
  dest,
  kind: 'choice',
  choices,
  ...more,
});

const LEGACY_SPEC = 'legacy flag of vLLM ≤ 0.8 (before --speculative-config); current vLLM rejects it';

// prettier-ignore
export const VLLM_FLAGS: readonly FlagSpec[] = [
  // --- model ---------------------------------------------------------------------------------
  s('model'),
  s('runner'), s('convert'), s('task', { note: 'removed from current vLLM (use --runner / --convert)' }),
  s('tokenizer'), s('tokenizer_mode'), s('revision'), s('code_revision'), s('tokenizer_revision'),
  s('hf_config_path'), s('config_format'), s('hf_token'), s('model_impl'), s('generation_config'),
  b('trust_remote_code'), b('skip_tokenizer_init'), b('enable_prompt_embeds'), b('enable_sleep_mode'),
  b('disable_sliding_window'), b('disable_cascade_attn'), b('language_model_only'),
  c('dtype', DTYPES),
  c('quantization', QUANTIZATION_METHODS, { aliases: ['-q'], choicePolicy: 'open' }),
  i('seed'), i('max_logprobs'), s('logprobs_mode'),
  i('max_model_len', { humanReadableInt: true, acceptsAuto: true }),
  b('enforce_eager'),
  j('hf_overrides'), j('rope_scaling'), f('rope_theta'), j('override_generation_config'), j('pooler_config'),
  j('override_pooler_config'), s('override_attention_dtype'), l('logits_processors'), s('logits_processor_pattern'),
  s('io_processor_plugin'), s('allowed_local_media_path'), l('allowed_media_domains'),
  l('served_model_name'),
  // --- load ----------------------------------------------------------------------------------
  c('load_format', LOAD_FORMATS, { choicePolicy: 'open' }),
  s('download_dir'), s('safetensors_load_strategy'), j('model_loader_extra_config'), l('ignore_patterns'),
  b('use_tqdm_on_load'), s('pt_load_map_location'),
  // --- structured outputs / reasoning / tools ------------------------------------------------
  j('structured_outputs_config'), s('reasoning_parser'), s('reasoning_parser_plugin'),
  s('guided_decoding_backend', { note: 'older vLLM flag; current vLLM uses --structured-outputs-config.backend' }),
  b('enable_auto_tool_choice'), s('tool_call_parser'), s('tool_parser_plugin'), s('tool_server'),
  b('exclude_tools_when_tool_choice_none'),
  // --- parallelism ---------------------------------------------------------------------------
  i('tensor_parallel_size', { aliases: ['-tp'] }),
  i('pipeline_parallel_size', { aliases: ['-pp'] }),
  i('data_parallel_size', { aliases: ['-dp'] }),
  i('decode_context_parallel_size', { aliases: ['-dcp'] }),
  i('prefill_context_parallel_size', { aliases: ['-pcp'] }),
  i('data_parallel_rank', { aliases: ['-dpn'] }),
  i('data_parallel_start_rank', { aliases: ['-dpr'] }),
  i('data_parallel_size_local', { aliases: ['-dpl'] }),
  s('data_parallel_address', { aliases: ['-dpa'] }),
  i('data_parallel_rpc_port', { aliases: ['-dpp'] }),
  s('data_parallel_backend', { aliases: ['-dpb'] }),
  b('data_parallel_hybrid_lb', { aliases: ['-dph'] }),
  b('data_parallel_external_lb', { aliases: ['-dpe'] }),
  b('enable_expert_parallel', { aliases: ['-ep'] }),
  i('nnodes', { aliases: ['-n'] }), i('node_rank', { aliases: ['-r'] }), s('master_addr'), i('master_port'),
  i('api_server_count', { aliases: ['-asc'] }), b('headless'),
  s('distributed_executor_backend'), s('all2all_backend'), b('enable_dbo'), b('enable_eplb'), j('eplb_config'),
  s('expert_placement_strategy'), i('max_parallel_loading_workers'), b('ray_workers_use_nsight'),
  b('disable_custom_all_reduce'), s('worker_cls'), s('worker_extension_cls'),
  b('enable_multimodal_encoder_data_parallel'),
  // --- cache ---------------------------------------------------------------------------------
  i('block_size'), f('gpu_memory_utilization'), i('kv_cache_memory_bytes', { humanReadableInt: true }),
  f('swap_space'), f('cpu_offload_gb'), i('num_gpu_blocks_override'),
  c('kv_cache_dtype', KV_CACHE_DTYPES),
  l('kv_cache_dtype_skip_layers'),
  b('enable_prefix_caching'), s('prefix_caching_hash_algo'),
  b('calculate_kv_scales', { note: 'deprecated in vLLM (CacheConfig says "will be removed in v0.19") and gone from main' }),
  b('kv_sharing_fast_prefill'), s('mamba_cache_dtype'), s('mamba_ssm_cache_dtype'),
  c('mamba_cache_mode', ['all', 'align', 'none']),
  f('kv_offloading_size'), s('kv_offloading_backend'),
  // --- multimodal ----------------------------------------------------------------------------
  j('limit_mm_per_prompt'), j('media_io_kwargs'), j('mm_processor_kwargs'), f('mm_processor_cache_gb'),
  s('mm_processor_cache_type'), i('mm_shm_cache_max_object_size_mb'),
  c('mm_encoder_tp_mode', ['weights', 'data']), b('interleave_mm_strings'), b('skip_mm_profiling'),
  f('video_pruning_rate'), b('disable_mm_preprocessor_cache'),
  // --- LoRA ----------------------------------------------------------------------------------
  b('enable_lora'), b('enable_lora_bias'), i('max_loras'), i('max_lora_rank'), s('lora_dtype'),
  i('max_cpu_loras'), b('fully_sharded_loras'), j('default_mm_loras'), i('lora_extra_vocab_size'),
  l('lora_modules'),
  // --- scheduler -----------------------------------------------------------------------------
  i('max_num_batched_tokens', { humanReadableInt: true }), i('max_num_seqs'),
  i('max_num_partial_prefills'), i('max_long_partial_prefills'), i('long_prefill_token_threshold'),
  l('cuda_graph_sizes'), b('enable_chunked_prefill'), b('disable_chunked_mm_input'), s('scheduler_cls'),
  b('disable_hybrid_kv_cache_manager'), b('async_scheduling'), c('scheduling_policy', ['fcfs', 'priority']),
  i('num_lookahead_slots'), f('scheduler_delay_factor'), s('preemption_mode'), i('stream_interval'),
  // --- compilation / optimization ------------------------------------------------------------
  j('compilation_config', { aliases: ['-cc'] }),
  s('optimization_level', { aliases: ['-O'] }),
  l('cudagraph_capture_sizes'), i('max_cudagraph_capture_size'),
  // --- feature configs (JSON) ----------------------------------------------------------------
  j('speculative_config'),
  j('attention_config', { aliases: ['-ac'] }),
  c('attention_backend', ATTENTION_BACKENDS, { caseInsensitive: true }),
  j('kv_transfer_config'), j('kv_events_config'), j('ec_transfer_config'), j('additional_config'),
  j('profiler_config'), j('kernel_config'), j('weight_transfer_config'),
  // --- observability -------------------------------------------------------------------------
  b('disable_log_stats'), b('enable_log_requests'), b('enable_log_outputs'),
  b('disable_log_requests', { note: 'deprecated in recent vLLM (request logging is off by default; use --enable-log-requests)' }),
  s('show_hidden_metrics_for_version'), s('otlp_traces_endpoint'), s('collect_detailed_traces'),
  // --- OpenAI frontend -----------------------------------------------------------------------
  s('host'), i('port'), s('uds'), s('uvicorn_log_level'), b('disable_uvicorn_access_log'),
  b('allow_credentials'), l('allowed_origins'), l('allowed_methods'), l('allowed_headers'),
  l('api_key', { secret: true }),
  s('chat_template'), s('chat_template_content_format'), b('trust_request_chat_template'),
  j('default_chat_template_kwargs'), s('response_role'),
  s('ssl_keyfile'), s('ssl_certfile'), s('ssl_ca_certs'), b('enable_ssl_refresh'), i('ssl_cert_reqs'),
  s('root_path'), l('middleware'), b('return_tokens_as_token_ids'), b('disable_frontend_multiprocessing'),
  b('enable_request_id_headers'), s('log_config_file'), i('max_log_len'), b('disable_fastapi_docs'),
  b('enable_prompt_tokens_details'), b('enable_server_load_tracking'), b('enable_force_include_usage'),
  b('enable_tokenizer_info_endpoint'), b('log_error_stack'),
  // `--config FILE` is handled before argparse (vllm-config-file.ts); listed so it is never "unknown".
  s('config'),
  b('help', { aliases: ['-h'], note: 'vLLM prints its help and exits: no server starts' }),
  // --- legacy flags still found in launch scripts --------------------------------------------
  s('speculative_model', { note: LEGACY_SPEC }),
  i('num_speculative_tokens', { note: LEGACY_SPEC }),
  s('speculative_model_quantization', { note: LEGACY_SPEC }),
  i('speculative_draft_tensor_parallel_size', { note: LEGACY_SPEC }),
  i('speculative_max_model_len', { note: LEGACY_SPEC }),
  i('speculative_disable_by_batch_size', { note: LEGACY_SPEC }),
  i('ngram_prompt_lookup_max', { note: LEGACY_SPEC }), i('ngram_prompt_lookup_min', { note: LEGACY_SPEC }),
  b('use_v2_block_manager', { note: 'legacy no-op flag of vLLM V0; current vLLM rejects it' }),
  i('num_scheduler_steps', { note: 'legacy flag of vLLM V0 (multi-step scheduling); current vLLM rejects it' }),
  i('max_seq_len_to_capture', { note: 'legacy flag; current vLLM uses --max-cudagraph-capture-size' }),
  s('device', { note: 'legacy flag; current vLLM detects the device' }),
  // --- fork-only flags seen in real launch files ---------------------------------------------
  j('diffusion_config', {
    note: 'not an upstream vLLM flag (seen in a patched build, r0b0tlab/diffusiongemma-26b-nvfp4-sm121-vllm); upstream vLLM rejects it',
  }),
];

// ---------------------------------------------------------------------------------------------
// Lookup.

export interface FlagMatch {
  spec: FlagSpec;
  /** The `--no-x` form of a bool flag. */
  negated: boolean;
}

export interface FlagIndex {
  /** Exact option string (`--kv-cache-dtype`, `-tp`, `--no-enforce-eager`) → its flag. */
  lookup(option: string): FlagMatch | undefined;
  /** The closest known option string, for "did you mean …?" hints. */
  suggest(option: string): string | undefined;
  /** Every option string, for help and tests. */
  options(): string[];
}

/**
 * Index the table (plus the caller's extra flags, which win over a built-in flag of the same dest
 * or option string) by every option string, including `--no-x` for bool flags.
 */
export function buildFlagIndex(extraFlags: readonly FlagSpec[] = []): FlagIndex {
  if (extraFlags.length === 0 && defaultIndex) return defaultIndex;
  const byOption = new Map<string, FlagMatch>();
  const add = (spec: FlagSpec): void => {
    const long = longOptionOf(spec.dest);
    for (const opt of [long, ...(spec.aliases ?? [])]) byOption.set(opt, { spec, negated: false });
    if (spec.kind === 'bool') byOption.set(`--no-${long.slice(2)}`, { spec, negated: true });
  };
  const extraDests = new Set(extraFlags.map((x) => x.dest));
  for (const spec of VLLM_FLAGS) if (!extraDests.has(spec.dest)) add(spec);
  for (const spec of extraFlags) add(spec);
  const index: FlagIndex = {
    lookup: (option) => byOption.get(option),
    suggest: (option) => closest(option, [...byOption.keys()]),
    options: () => [...byOption.keys()],
  };
  if (extraFlags.length === 0) defaultIndex = index;
  return index;
}

/** The index of the built-in table, built once: lint parses many launches. */
let defaultIndex: FlagIndex | undefined;

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

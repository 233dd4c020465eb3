/**
 * `engine serve --runtime llama.cpp` argv → LlamaCppOptions + server settings. Names and short
 * forms are llama-server's (`--ctx-size/-c`, `--parallel/-np`, `--flash-attn/-fa`, …), with
 * `--name value` and `--name=value`; an unknown flag or a bad value is a UserError with a hint,
 * never ignored (a server that silently dropped a flag would answer for another launch).
 */
import { UserError } from '../core/errors.js';
import {
  CACHE_TYPES,
  checkOptions,
  DEFAULT_OPTIONS,
  FLASH_ATTN,
  SPEC_TYPES,
  type CacheType,
  type FlashAttn,
  type LlamaCppOptions,
  type SpecType,
} from './options.js';
import { parsePlantedFaults } from './planted-faults.js';

type Kind = 'int' | 'string' | 'bool' | 'number';
interface Flag {
  dest: string;
  names: string[];
  kind: Kind;
  /** For bool flags: the names that set it false. */
  negatives?: string[];
  choices?: readonly string[];
  help: string;
}

export const LLAMA_CPP_FLAGS: readonly Flag[] = [
  {
    dest: 'model',
    names: ['--model', '-m'],
    kind: 'string',
    help: 'the GGUF file (from `faultline engine export-gguf`)',
  },
  { dest: 'host', names: ['--host'], kind: 'string', help: 'bind address (default 127.0.0.1)' },
  { dest: 'port', names: ['--port'], kind: 'int', help: 'port (default 8000; 0 picks a free one)' },
  {
    dest: 'alias',
    names: ['--alias', '-a', '--served-model-name'],
    kind: 'string',
    help: 'the model id clients send (default: the file name without .gguf)',
  },
  {
    dest: 'ctx_size',
    names: ['--ctx-size', '-c'],
    kind: 'int',
    help: 'KV cells over all sequences; each gets ctx-size / parallel (default: the model context length per sequence)',
  },
  {
    dest: 'parallel',
    names: ['--parallel', '-np'],
    kind: 'int',
    help: 'sequences in the one context, batched together by llama.cpp (default 4)',
  },
  {
    dest: 'flash_attn',
    names: ['--flash-attn', '-fa'],
    kind: 'string',
    choices: FLASH_ATTN,
    help: 'flash attention on|off|auto (default auto: on for the CPU build)',
  },
  {
    dest: 'cache_type_k',
    names: ['--cache-type-k', '-ctk'],
    kind: 'string',
    choices: CACHE_TYPES,
    help: 'K cache type (default f16)',
  },
  {
    dest: 'cache_type_v',
    names: ['--cache-type-v', '-ctv'],
    kind: 'string',
    choices: CACHE_TYPES,
    help: 'V cache type (default f16; quantized types need flash attention)',
  },
  {
    dest: 'swa_full',
    names: ['--swa-full'],
    kind: 'bool',
    help: 'full-size cache for sliding-window layers (default: the window only)',
  },
  {
    dest: 'batch_size',
    names: ['--batch-size', '-b'],
    kind: 'int',
    help: 'tokens per llama_decode (n_batch = n_ubatch in node-llama-cpp; default 512)',
  },
  {
    dest: 'context_shift',
    names: ['--context-shift'],
    negatives: ['--no-context-shift'],
    kind: 'bool',
    help: 'when a sequence fills its context, erase its oldest tokens and go on (default off: requests must fit)',
  },
  {
    dest: 'cache_reuse',
    names: ['--cache-prompt'],
    negatives: ['--no-cache-prompt'],
    kind: 'bool',
    help: "reuse a free sequence's cached prefix of the prompt (default on)",
  },
  {
    dest: 'model_draft',
    names: ['--model-draft', '-md', '--spec-draft-model'],
    kind: 'string',
    help: 'draft GGUF for speculative decoding (same vocabulary; one draft context per sequence)',
  },
  {
    dest: 'draft_max',
    names: ['--spec-draft-n-max', '--draft-max', '--draft', '--draft-n'],
    kind: 'int',
    help: 'most draft tokens per step (default 16)',
  },
  {
    dest: 'draft_min',
    names: ['--spec-draft-n-min', '--draft-min', '--draft-n-min'],
    kind: 'int',
    help: 'fewest draft tokens per step (default 0)',
  },
  {
    dest: 'draft_p_min',
    names: ['--spec-draft-p-min', '--draft-p-min'],
    kind: 'number',
    help: "drafting stops at a token the draft gives less probability (default 0.6, node-llama-cpp's; 0: always draft)",
  },
  {
    dest: 'spec_type',
    names: ['--spec-type'],
    kind: 'string',
    choices: SPEC_TYPES,
    help: 'draft-simple: the --model-draft drafts (it does here with none too); ngram-simple: prompt lookup, the last generated n-gram found in the sequence drafts what followed it (default none)',
  },
  {
    dest: 'ngram_size_n',
    names: ['--spec-ngram-simple-size-n'],
    kind: 'int',
    help: 'ngram-simple: generated tokens to look up (default 12)',
  },
  {
    dest: 'ngram_size_m',
    names: ['--spec-ngram-simple-size-m'],
    kind: 'int',
    help: 'ngram-simple: most tokens one lookup drafts (default 48)',
  },
  {
    dest: 'planted_fault',
    names: ['--planted-fault'],
    kind: 'string',
    help: 'a fault planted on purpose, for calibration: wrong-token:EVERY:FROM or stale-prefix:BLOCK (comma-separate several)',
  },
  {
    dest: 'threads',
    names: ['--threads', '-t'],
    kind: 'int',
    help: 'CPU threads per evaluation (default 1)',
  },
  {
    dest: 'max_logprobs',
    names: ['--max-logprobs'],
    kind: 'int',
    help: 'most alternatives logprobs may ask for (default 20)',
  },
  {
    dest: 'shutdown_timeout',
    names: ['--shutdown-timeout'],
    kind: 'number',
    help: 'on SIGTERM, seconds in-flight requests may finish (default 10)',
  },
  { dest: 'runtime', names: ['--runtime'], kind: 'string', help: 'llama.cpp' },
];

export interface LlamaCppServeSettings {
  model: string;
  host: string;
  port: number;
  alias: string | null;
  maxLogprobs: number;
  shutdownSeconds: number;
  options: LlamaCppOptions;
}

const hint = 'see `faultline engine serve --runtime llama.cpp --help`';

function flagOf(name: string): { flag: Flag; value?: boolean } | undefined {
  for (const flag of LLAMA_CPP_FLAGS) {
    if (flag.names.includes(name)) return { flag, value: flag.kind === 'bool' ? true : undefined };
    if (flag.negatives?.includes(name)) return { flag, value: false };
  }
  return undefined;
}

export function parseLlamaCppArgv(
  argv: readonly string[],
  cwdResolve: (p: string) => string,
): LlamaCppServeSettings {
  const seen = new Map<string, string | boolean>();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    const name = eq > 0 ? word.slice(0, eq) : word;
    const found = flagOf(name);
    if (!found)
      throw new UserError(`${word} is not an option of the llama.cpp runtime`, { code: 'E_USAGE', hint });
    const { flag } = found;
    if (flag.kind === 'bool') {
      if (eq > 0) throw new UserError(`${name} takes no value`, { code: 'E_USAGE', hint });
      seen.set(flag.dest, found.value!);
      continue;
    }
    const value = eq > 0 ? word.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UserError(`${name} needs a value`, { code: 'E_USAGE', hint });
    if (flag.choices && !flag.choices.includes(value))
      throw new UserError(`${name} ${value} is not one of ${flag.choices.join(', ')}`, {
        code: 'E_ENGINE_FLAG',
        hint: `use one of ${flag.choices.join(', ')}`,
      });
    seen.set(flag.dest, value);
  }
  const int = (dest: string, fallback: number, min: number): number => {
    const v = seen.get(dest);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new UserError(`--${dest.replace(/_/g, '-')} must be an integer ≥ ${min}, got ${String(v)}`, {
        code: 'E_USAGE',
        hint,
      });
    return n;
  };
  const probability = (dest: string, fallback: number): number => {
    const v = seen.get(dest);
    if (v === undefined) return fallback;
    const p = Number(v);
    if (!(p >= 0 && p <= 1))
      throw new UserError(`--${dest.replace(/_/g, '-')} must be a probability in [0, 1], got ${String(v)}`, {
        code: 'E_USAGE',
        hint,
      });
    return p;
  };
  const runtime = seen.get('runtime');
  if (runtime !== undefined && runtime !== 'llama.cpp')
    throw new UserError(`--runtime ${String(runtime)} is not a runtime`, {
      code: 'E_USAGE',
      hint: 'use --runtime faultline (default) or --runtime llama.cpp',
    });
  const model = seen.get('model');
  if (typeof model !== 'string')
    throw new UserError('the llama.cpp runtime needs --model FILE.gguf', {
      code: 'E_USAGE',
      hint: 'write one with `faultline engine export-gguf --out FILE.gguf`',
    });
  const shutdownSeconds = seen.has('shutdown_timeout') ? Number(seen.get('shutdown_timeout')) : 10;
  if (!Number.isFinite(shutdownSeconds) || shutdownSeconds < 0)
    throw new UserError('--shutdown-timeout must be a number of seconds ≥ 0', { code: 'E_USAGE', hint });
  const port = int('port', 8000, 0);
  if (port > 65535) throw new UserError('--port must be ≤ 65535', { code: 'E_USAGE', hint });
  const draft = seen.get('model_draft');
  const options: LlamaCppOptions = {
    ctxSize: seen.has('ctx_size') ? int('ctx_size', 0, 1) : null,
    parallel: int('parallel', DEFAULT_OPTIONS.parallel, 1),
    flashAttn: (seen.get('flash_attn') as FlashAttn | undefined) ?? DEFAULT_OPTIONS.flashAttn,
    cacheTypeK: (seen.get('cache_type_k') as CacheType | undefined) ?? DEFAULT_OPTIONS.cacheTypeK,
    cacheTypeV: (seen.get('cache_type_v') as CacheType | undefined) ?? DEFAULT_OPTIONS.cacheTypeV,
    swaFull: seen.get('swa_full') === true,
    batchSize: seen.has('batch_size') ? int('batch_size', 0, 1) : null,
    contextShift: seen.get('context_shift') === true,
    cacheReuse: seen.get('cache_reuse') !== false,
    modelDraft: typeof draft === 'string' ? cwdResolve(draft) : null,
    draftMax: int('draft_max', DEFAULT_OPTIONS.draftMax, 1),
    draftMin: int('draft_min', DEFAULT_OPTIONS.draftMin, 0),
    draftPMin: probability('draft_p_min', DEFAULT_OPTIONS.draftPMin),
    specType: (seen.get('spec_type') as SpecType | undefined) ?? DEFAULT_OPTIONS.specType,
    ngramSizeN: int('ngram_size_n', DEFAULT_OPTIONS.ngramSizeN, 1),
    ngramSizeM: int('ngram_size_m', DEFAULT_OPTIONS.ngramSizeM, 1),
    threads: int('threads', DEFAULT_OPTIONS.threads, 1),
    plantedFaults:
      typeof seen.get('planted_fault') === 'string'
        ? parsePlantedFaults(seen.get('planted_fault') as string)
        : {},
  };
  checkOptions(options, () => undefined);
  return {
    model: cwdResolve(model),
    host: String(seen.get('host') ?? '127.0.0.1'),
    port,
    alias: typeof seen.get('alias') === 'string' ? (seen.get('alias') as string) : null,
    maxLogprobs: int('max_logprobs', 20, 1),
    shutdownSeconds,
    options,
  };
}

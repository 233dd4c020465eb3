/**
 * Model facts from a GGUF file's header (reader.ts: metadata only, never the tensor data), in the
 * shape config.json gives them (deployment/model-config.ts → ModelFacts), so the same hazard
 * conditions read either. Keys as llama.cpp names them (src/llama-arch.cpp, LLM_KV_*):
 *
 *   general.architecture                       → modelType (`gemma3`, `llama`, `deepseek4`, `gpt-oss`)
 *   <arch>.block_count                         → one layer kind per block
 *   <arch>.context_length                      → contextLength
 *   <arch>.attention.sliding_window            → window
 *   <arch>.attention.sliding_window_pattern    → which layers slide: a period P (layer il slides when
 *                                                il % P < P − 1, llama_hparams::set_swa_pattern; P = 0:
 *                                                every layer) or one bool per layer
 *   <arch>.attention.head_count[_kv]           → heads (a number, or one per layer)
 *   <arch>.attention.key_length / value_length → K / V head sizes (default: embedding_length / head_count)
 *   <arch>.attention.key_length_swa / _mla     → sliding layers' head sizes; MLA
 *
 * Without a pattern key, the period is the architecture's default in llama.cpp's model code
 * (gemma2 2, gemma3 6, gemma3n 5, cohere2 / exaone4 / afmoe / laguna 4, gpt-oss 2); gemma3 with no
 * window (or window 0) has no sliding layers. Any other architecture with a window and no pattern:
 * every layer is read as sliding (the same rule the config.json path applies), with a note.
 */
import { UserError } from '../core/errors.js';
import type { AttentionShape, LayerKind, ModelFacts } from '../deployment/deployment.js';
import { readGgufHeader, type MetadataValue } from './reader.js';

/** llama.cpp's default sliding period per architecture when the file has no pattern key. */
const DEFAULT_PERIOD: Record<string, number> = {
  gemma2: 2,
  gemma3: 6,
  gemma3n: 5,
  'gemma-embedding': 6,
  cohere2: 4,
  exaone4: 4,
  afmoe: 4,
  laguna: 4,
  'gpt-oss': 2,
};

/** Architectures whose model code slides some layers even when the file gives no window. */
const DEFAULT_WINDOW: Record<string, number> = { gemma2: 4096 };

/** Layers faultline describes at most: a block count beyond it is not a model (a hostile header). */
const MAX_LAYERS = 100_000;

const HINT =
  "pass the model's GGUF file (or its config.json / Hugging Face directory) to --model-config; `faultline engine export-gguf --out FILE.gguf` writes one";

function bad(path: string, why: string): never {
  throw new UserError(`${path}: ${why}`, { code: 'E_MODEL_CONFIG', hint: HINT });
}

/** A non-negative integer, or undefined (a bigint beyond 2^53 is refused by the caller). */
function int(v: MetadataValue | undefined): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  return undefined;
}

/** A count given as one number or one per layer: the per-layer list (length checked) or the number. */
function perLayer(
  path: string,
  key: string,
  v: MetadataValue | undefined,
  layers: number,
): { one?: number; each?: number[] } {
  if (v === undefined) return {};
  if (Array.isArray(v)) {
    const each = v.map(int);
    if (each.some((x) => x === undefined))
      bad(path, `${key} holds a value that is not a non-negative integer`);
    if (each.length !== layers) bad(path, `${key} has ${each.length} entries for ${layers} layers`);
    return { each: each as number[] };
  }
  const one = int(v);
  if (one === undefined) bad(path, `${key} is not a non-negative integer`);
  return { one };
}

export function isGgufFile(path: string): boolean {
  return /\.gguf$/i.test(path);
}

export function ggufModelFacts(path: string): ModelFacts {
  const header = readGgufHeader(path, '--model-config', HINT);
  const m = header.metadata;
  const arch = m.get('general.architecture');
  if (typeof arch !== 'string' || arch === '')
    bad(path, 'the header has no general.architecture (every GGUF llama.cpp loads names one)');
  const key = (k: string) => `${arch}.${k}`;
  const notes: string[] = [];
  const blocks = int(m.get(key('block_count')));
  if (blocks === undefined) bad(path, `the header has no ${key('block_count')} (the number of layers)`);
  if (blocks > MAX_LAYERS) bad(path, `${key('block_count')} is ${blocks}, more layers than any model has`);

  const heads = perLayer(path, key('attention.head_count'), m.get(key('attention.head_count')), blocks);
  const headsKv = perLayer(
    path,
    key('attention.head_count_kv'),
    m.get(key('attention.head_count_kv')),
    blocks,
  );
  const maxOf = (x: { one?: number; each?: number[] }) =>
    x.one ?? (x.each ? Math.max(0, ...x.each) : undefined);
  const headCount = maxOf(heads);
  // llama.cpp: head_count_kv defaults to head_count
  const headCountKv = maxOf(headsKv) ?? headCount;
  const embd = int(m.get(key('embedding_length')));
  const keyLength =
    int(m.get(key('attention.key_length'))) ??
    (embd !== undefined && headCount ? Math.floor(embd / headCount) : undefined);
  const valueLength = int(m.get(key('attention.value_length'))) ?? keyLength;
  const mla = m.has(key('attention.key_length_mla')) || m.has(key('attention.kv_lora_rank'));
  const attention: AttentionShape = {
    ...(headCount !== undefined ? { headCount } : {}),
    ...(headCountKv !== undefined ? { headCountKv } : {}),
    ...(keyLength !== undefined ? { keyLength } : {}),
    ...(valueLength !== undefined ? { valueLength } : {}),
    ...(int(m.get(key('attention.key_length_swa'))) !== undefined
      ? { keyLengthSwa: int(m.get(key('attention.key_length_swa'))) }
      : {}),
    ...(int(m.get(key('attention.value_length_swa'))) !== undefined
      ? { valueLengthSwa: int(m.get(key('attention.value_length_swa'))) }
      : {}),
  };
  if (mla) attention.kvLayout = 'mla';
  else if (headCount && headCountKv) {
    attention.kvLayout = headCountKv === headCount ? 'mha' : headCountKv === 1 ? 'mqa' : 'gqa';
  }

  const swaKey = key('attention.sliding_window');
  const patternKey = key('attention.sliding_window_pattern');
  const givenWindow = m.get(swaKey);
  let window = int(givenWindow);
  if (givenWindow !== undefined && window === undefined) bad(path, `${swaKey} is not a non-negative integer`);
  if (window === undefined && DEFAULT_WINDOW[arch] !== undefined) {
    window = DEFAULT_WINDOW[arch];
    notes.push(`${swaKey} is not in the file: llama.cpp's ${arch} uses ${window}`);
  }
  let layers: LayerKind[] = Array.from({ length: blocks }, () => 'full' as LayerKind);
  if (window !== undefined && window > 0) {
    const pattern = m.get(patternKey);
    if (Array.isArray(pattern)) {
      if (pattern.length !== blocks)
        bad(path, `${patternKey} has ${pattern.length} entries for ${blocks} layers`);
      layers = pattern.map((x) => (x === true || x === 1 ? 'sliding' : 'full'));
    } else {
      let period = int(pattern);
      if (pattern !== undefined && period === undefined)
        bad(path, `${patternKey} is not a period or a list of bools`);
      if (period === undefined) period = DEFAULT_PERIOD[arch];
      if (period !== undefined) {
        const p = period;
        layers = layers.map((_, il) => (p === 0 || il % p < p - 1 ? 'sliding' : 'full'));
        if (pattern === undefined)
          notes.push(`${patternKey} is not in the file: llama.cpp's ${arch} slides by period ${p}`);
      } else {
        layers = layers.map(() => 'sliding');
        notes.push(
          `${arch}: the file gives a sliding window of ${window} but no ${patternKey}; which layers slide is llama.cpp's ${arch} code's choice, read here as every layer`,
        );
      }
    }
  } else window = undefined;
  // all-zero KV heads on a layer: no attention there (recurrent layers of hybrid models)
  if (headsKv.each) layers = layers.map((k, il) => (headsKv.each?.[il] === 0 ? 'linear' : k));

  const ctx = int(m.get(key('context_length')));
  return {
    source: path,
    format: 'gguf',
    modelType: arch,
    layers,
    ...(window !== undefined && layers.includes('sliding') ? { window } : {}),
    ...(Object.keys(attention).length ? { attention } : {}),
    ...(ctx !== undefined ? { contextLength: ctx } : {}),
    notes,
  };
}

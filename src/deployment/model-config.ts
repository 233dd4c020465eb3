/**
 * Model facts from a Hugging Face checkpoint: `readModelFacts(path)` takes a config.json or a
 * model directory and returns the per-layer attention kinds and window (layer-kinds.ts), the
 * KV-cache dtype the checkpoint declares (checkpoint-kv-dtype.ts, from config.json and the
 * hf_quant_config.json beside it), and — for a directory with safetensors — the attention scales
 * stored in it (checkpoint-scales.ts). Without safetensors, `scales` stays absent: unknown, not 1.0.
 * A GGUF file (by its `.gguf` name or its magic) is read by gguf/model-facts.ts from its header alone.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../core/errors.js';
import { checkpointKvDtype } from './checkpoint-kv-dtype.js';
import { checkpointQuantization } from './checkpoint-quant.js';
import { checkpointScales } from './checkpoint-scales.js';
import { ggufModelFacts, isGgufFile } from '../gguf/model-facts.js';
import type { AttentionShape, ModelFacts } from './deployment.js';
import { layerFactsOf, textConfigOf } from './layer-kinds.js';
import { parsePythonJson } from './python-json.js';
import { isPlainObject } from './vllm-values.js';

export const HF_QUANT_CONFIG = 'hf_quant_config.json';

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      code: 'E_MODEL_CONFIG',
      hint: 'check the path and its permissions',
    });
  }
  return parsePythonJson(text, file);
}

export function readModelFacts(pathOrDir: string): ModelFacts {
  if (!existsSync(pathOrDir)) {
    throw new UserError(`no such model config or directory: ${pathOrDir}`, {
      code: 'E_MODEL_CONFIG',
      hint: "pass the model's config.json or the directory that holds it",
    });
  }
  const isDir = statSync(pathOrDir).isDirectory();
  // A GGUF (llama.cpp's single-file format): its header holds the same facts
  if (!isDir && (isGgufFile(pathOrDir) || startsWithGgufMagic(pathOrDir))) return ggufModelFacts(pathOrDir);
  const dir = isDir ? pathOrDir : dirname(pathOrDir);
  const configFile = isDir ? join(pathOrDir, 'config.json') : pathOrDir;
  if (isDir && !existsSync(configFile)) {
    throw new UserError(`${pathOrDir} has no config.json`, {
      code: 'E_MODEL_CONFIG',
      hint: 'point at a Hugging Face model directory (it holds config.json) or at the config file itself',
    });
  }
  const config = readJson(configFile);
  const at = { file: configFile, line: 1, column: 1 };
  if (!isPlainObject(config)) {
    throw new UserError(`${configFile} must hold a JSON object`, {
      code: 'E_MODEL_CONFIG',
      at,
      hint: 'this does not look like a Hugging Face config.json',
    });
  }
  const layerFacts = layerFactsOf(config, at);
  const notes = [...layerFacts.notes];

  const hfQuantFile = join(dir, HF_QUANT_CONFIG);
  const hfQuant = existsSync(hfQuantFile) ? readJson(hfQuantFile) : undefined;
  const kv = checkpointKvDtype(config, hfQuant, { config: basename(configFile), hfQuant: HF_QUANT_CONFIG });
  notes.push(...kv.notes);
  const quantization = checkpointQuantization(config, hfQuant, {
    config: basename(configFile),
    hfQuant: HF_QUANT_CONFIG,
  });

  const scales = isDir ? checkpointScales(dir, layerFacts.layers.length, notes) : undefined;
  if (isDir && !scales)
    notes.push('no safetensors checkpoint in the directory: attention scales are unknown');

  return {
    source: configFile,
    ...(layerFacts.modelType ? { modelType: layerFacts.modelType } : {}),
    ...architecturesOf(config),
    layers: layerFacts.layers,
    ...(layerFacts.window !== undefined ? { window: layerFacts.window } : {}),
    ...(layerFacts.chunkSize !== undefined ? { chunkSize: layerFacts.chunkSize } : {}),
    ...(kv.dtype ? { kvDtypeFromCheckpoint: kv.dtype, kvDtypeEvidence: kv.evidence } : {}),
    ...(scales ? { scales } : {}),
    ...(quantization ? { quantization } : {}),
    // A vision or audio tower in config.json: the model takes media inputs.
    multimodal: config.vision_config != null || config.audio_config != null,
    ...attentionOf(config),
    format: 'config.json',
    notes,
  };
}

function startsWithGgufMagic(file: string): boolean {
  const buf = Buffer.alloc(4);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    return readSync(fd, buf, 0, 4, 0) === 4 && buf.toString('latin1') === 'GGUF';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Heads and head sizes from the decoder's config (transformers' names), and the trained context. */
function attentionOf(config: Record<string, unknown>): {
  attention?: AttentionShape;
  contextLength?: number;
} {
  const tc = textConfigOf(config);
  const n = (k: string) => {
    const v = tc[k];
    return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
  };
  const headCount = n('num_attention_heads');
  const headCountKv = n('num_key_value_heads') ?? headCount;
  const hidden = n('hidden_size');
  const keyLength = n('head_dim') ?? (hidden && headCount ? Math.floor(hidden / headCount) : undefined);
  const mla = n('kv_lora_rank') !== undefined;
  const attention: AttentionShape = {
    ...(headCount ? { headCount } : {}),
    ...(headCountKv ? { headCountKv } : {}),
    ...(keyLength && !mla ? { keyLength, valueLength: n('v_head_dim') ?? keyLength } : {}),
  };
  if (mla) attention.kvLayout = 'mla';
  else if (headCount && headCountKv)
    attention.kvLayout = headCountKv === headCount ? 'mha' : headCountKv === 1 ? 'mqa' : 'gqa';
  const ctx = n('max_position_embeddings');
  return {
    ...(Object.keys(attention).length ? { attention } : {}),
    ...(ctx ? { contextLength: ctx } : {}),
  };
}

/** config.json `architectures` (SGLang keys its per-model choices on them). */
function architecturesOf(config: unknown): { architectures?: string[] } {
  const a = (config as { architectures?: unknown } | null)?.architectures;
  return Array.isArray(a) && a.every((x) => typeof x === 'string') ? { architectures: a } : {};
}

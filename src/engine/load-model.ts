/**
 * loadModel(dir): config.json + safetensors checkpoint (one file or sharded with an HF index)
 * → Model. Weights are widened to Float32Array once here (BF16 → float32 is exact).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { openCheckpoint } from '../tensors/safetensors-index.js';
import { toFloat32 } from '../tensors/tensor.js';
import { parseModelConfig } from './config.js';
import type { Model } from './model.js';
import { weightsFromTensors, type LoadedTensor } from './weights.js';

const FLOAT_DTYPES = new Set(['F32', 'BF16', 'F16', 'F64']);

export function readModelConfig(dir: string) {
  const file = join(dir, 'config.json');
  const hint = 'pass a model directory (config.json + safetensors), e.g. --model models/tiny-swa';
  if (!existsSync(dir)) throw new UserError(`model directory ${dir} does not exist`, { code: 'E_MODEL', hint });
  if (!statSync(dir).isDirectory()) throw new UserError(`${dir} is a file, not a model directory`, { code: 'E_MODEL', hint });
  if (!existsSync(file))
    throw new UserError(`${dir} has no config.json`, { code: 'E_MODEL', hint: 'pass a model directory (config.json + safetensors), e.g. --model models/tiny-swa' });
  const text = readFileSync(file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const before = m ? text.slice(0, Number(m[1])).split('\n') : [''];
    throw new UserError(`config.json is not valid JSON (${(e as Error).message})`, {
      code: 'E_MODEL_CONFIG',
      at: { file, line: before.length, column: before[before.length - 1].length + 1 },
    });
  }
  return parseModelConfig(json, file);
}

export function loadModel(dir: string): Model {
  const config = readModelConfig(dir);
  const ckpt = openCheckpoint(dir);
  try {
    const get = (name: string): LoadedTensor | undefined => {
      if (!ckpt.has(name)) return undefined;
      const t = ckpt.read(name);
      if (!FLOAT_DTYPES.has(t.dtype))
        throw new UserError(`${dir}: tensor "${name}" has dtype ${t.dtype}; the engine reads float weights (BF16, F16, F32)`, {
          code: 'E_CHECKPOINT',
        });
      return { shape: t.shape, data: toFloat32(t) };
    };
    return { config, weights: weightsFromTensors(config, get, dir) };
  } finally {
    ckpt.close();
  }
}

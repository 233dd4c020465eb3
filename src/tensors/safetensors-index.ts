/**
 * A checkpoint behind one interface, whether it is one `model.safetensors` or a sharded HF
 * checkpoint: `model.safetensors.index.json` = {"metadata": {...}, "weight_map": {tensor: shard file}}.
 * Shard paths are relative to the index's directory; a shard may be a symlink to a file elsewhere
 * (two checkpoints sharing one weights file on disk), which is simply followed. Shard names must be relative and stay inside the directory (no absolute paths, no "..").
 * Every tensor of the weight_map must exist in its shard; tensors a shard holds beyond its
 * weight_map entries are ignored, as HF loaders do.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { UserError, type SourceLocation } from '../core/errors.js';
import type { DType } from './dtypes.js';
import { openSafetensors, type SafetensorsFile } from './safetensors.js';
import type { Tensor } from './tensor.js';

const CODE = 'E_CHECKPOINT';
export const INDEX_FILE = 'model.safetensors.index.json';
export const SINGLE_FILE = 'model.safetensors';

export interface Checkpoint {
  /** The directory (or, for a single file given directly, that file's path). */
  readonly path: string;
  /** Tensor names, sorted. */
  readonly names: string[];
  /** The safetensors files the checkpoint reads. */
  readonly files: string[];
  /** The index's "metadata" object, or the single file's __metadata__. */
  readonly metadata: Record<string, unknown>;
  has(name: string): boolean;
  info(name: string): { dtype: DType; shape: number[] };
  read(name: string): Tensor;
  close(): void;
}

/** Opens a directory holding an index or a model.safetensors, or a .safetensors file directly. */
export function openCheckpoint(path: string): Checkpoint {
  if (!existsSync(path))
    throw new UserError(`no such checkpoint: ${path}`, { code: CODE, hint: 'pass the model directory' });
  if (statSync(path).isFile()) return singleFile(path, path);
  const index = join(path, INDEX_FILE);
  if (existsSync(index)) return sharded(path, index);
  const single = join(path, SINGLE_FILE);
  if (existsSync(single)) return singleFile(path, single);
  throw new UserError(`${path} holds neither ${INDEX_FILE} nor ${SINGLE_FILE}`, {
    code: CODE,
    hint: 'a checkpoint directory needs one of them (HF layout)',
  });
}

function singleFile(path: string, file: string): Checkpoint {
  const f = openSafetensors(file);
  return {
    path,
    names: [...f.names].sort(),
    files: [file],
    metadata: { ...f.metadata },
    has: (n) => f.has(n),
    info: (n) => f.info(n),
    read: (n) => f.read(n),
    close: () => f.close(),
  };
}

/** file:line:col of a character offset in a text, for JSON syntax errors. */
function locate(file: string, text: string, offset: number): SourceLocation {
  const before = text.slice(0, offset).split('\n');
  return { file, line: before.length, column: before[before.length - 1].length + 1 };
}

function readIndex(index: string): { weightMap: Map<string, string>; metadata: Record<string, unknown> } {
  const text = readFileSync(index, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    throw new UserError(`${INDEX_FILE} is not valid JSON (${(e as Error).message})`, {
      code: CODE,
      at: m ? locate(index, text, Number(m[1])) : { file: index, line: 1, column: 1 },
    });
  }
  const at = { file: index, line: 1, column: 1 };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(json) || !isObject(json.weight_map)) {
    throw new UserError(`${INDEX_FILE} must be an object with a "weight_map" object`, { code: CODE, at });
  }
  if (json.metadata !== undefined && !isObject(json.metadata)) {
    throw new UserError(`${INDEX_FILE}: "metadata" must be an object`, { code: CODE, at });
  }
  const weightMap = new Map<string, string>();
  for (const [name, shard] of Object.entries(json.weight_map)) {
    if (typeof shard !== 'string' || shard === '') {
      throw new UserError(
        `${INDEX_FILE}: weight_map["${name}"] must be a file name, got ${JSON.stringify(shard)}`,
        { code: CODE, at },
      );
    }
    const norm = normalize(shard);
    if (isAbsolute(shard) || norm === '..' || norm.startsWith(`..${sep}`)) {
      throw new UserError(
        `${INDEX_FILE}: shard "${shard}" (for "${name}") must be a path inside the checkpoint directory`,
        {
          code: CODE,
          at,
          hint: 'shards are named relative to the index; use a symlink to share a file with another checkpoint',
        },
      );
    }
    weightMap.set(name, norm);
  }
  return { weightMap, metadata: { ...(json.metadata as Record<string, unknown> | undefined) } };
}

function sharded(dir: string, index: string): Checkpoint {
  const { weightMap, metadata } = readIndex(index);
  const shards = new Map<string, SafetensorsFile>();
  const closeAll = () => shards.forEach((f) => f.close());
  try {
    for (const shard of new Set(weightMap.values())) {
      const file = join(dir, shard);
      if (!existsSync(file)) {
        throw new UserError(`${INDEX_FILE} names shard "${shard}", which does not exist in ${dir}`, {
          code: CODE,
          at: { file: index, line: 1, column: 1 },
          hint: 'check the file name; a broken symlink also shows as missing',
        });
      }
      shards.set(shard, openSafetensors(file));
    }
    for (const [name, shard] of weightMap) {
      if (!shards.get(shard)!.has(name)) {
        throw new UserError(`${INDEX_FILE} maps "${name}" to "${shard}", but that shard has no such tensor`, {
          code: CODE,
          at: { file: index, line: 1, column: 1 },
        });
      }
    }
  } catch (e) {
    closeAll();
    throw e;
  }
  const shardOf = (name: string): SafetensorsFile => {
    const shard = weightMap.get(name);
    if (shard === undefined) {
      throw new UserError(`checkpoint ${dir} has no tensor named "${name}"`, {
        code: CODE,
        hint: `it has ${weightMap.size} tensors`,
      });
    }
    return shards.get(shard)!;
  };
  return {
    path: dir,
    names: [...weightMap.keys()].sort(),
    files: [...shards.keys()].map((s) => join(dir, s)),
    metadata,
    has: (n) => weightMap.has(n),
    info: (n) => shardOf(n).info(n),
    read: (n) => shardOf(n).read(n),
    close: closeAll,
  };
}

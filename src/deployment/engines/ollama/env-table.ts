/**
 * Ollama's server settings as generated data: data/ollama-env/<version>.json, the variables
 * envconfig/config.go reads (its AsMap list plus the accessors it does not list), each with its
 * type and default, written by scripts/ollama-env/extract-ollama-env.mjs at a named commit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../core/package-root.js';
import { compareVersions } from '../../versions.js';

export interface OllamaVariable {
  name: string;
  description: string | null;
  /** `bool`, `uint`, `uint64`, `string`, `duration`, `url`, `list`, `loglevel`. */
  type: string;
  accessor: string;
  default?: unknown;
  defaultFrom?: string;
  goos?: string;
  listed: boolean;
}

export interface OllamaEnvTable {
  ollamaVersion: string;
  source: { repository: string; tag: string; commit: string; date: string; subject: string; files: string[] };
  generator: string;
  variables: OllamaVariable[];
}

const DIR = join(packageRoot, 'data', 'ollama-env');
let cached: OllamaEnvTable | undefined;

/** The newest table (one per Ollama release; variables rarely change meaning between them). */
export function ollamaEnvTable(): OllamaEnvTable {
  if (cached) return cached;
  const versions = readdirSync(DIR)
    .filter((f) => /^v\d+\.\d+\.\d+\.json$/.test(f))
    .map((f) => f.slice(1, -'.json'.length))
    .sort(compareVersions);
  cached = JSON.parse(
    readFileSync(join(DIR, `v${versions[versions.length - 1]}.json`), 'utf8'),
  ) as OllamaEnvTable;
  return cached;
}

export function ollamaVariable(name: string): OllamaVariable | undefined {
  return ollamaEnvTable().variables.find((v) => v.name === name);
}

const IMAGE = /^(?:docker\.io\/)?(?:library\/)?ollama\/ollama(?::([\w.-]+))?(?:@sha256:[0-9a-f]+)?$/i;

/** The official ollama/ollama image, with the release its tag names (`0.12.3`, `0.12.3-rocm`); `latest` names none. */
export function ollamaImage(image: string | undefined): { version?: string; tag?: string } | undefined {
  const m = image ? IMAGE.exec(image.trim()) : null;
  if (!m) return undefined;
  const tag = m[1];
  const v = tag ? /^v?(\d+\.\d+\.\d+(?:-rc\d+)?)(?:-[a-z0-9]+)?$/i.exec(tag) : null;
  return { ...(tag ? { tag } : {}), ...(v ? { version: v[1] } : {}) };
}

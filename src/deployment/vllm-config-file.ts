/**
 * `vllm serve … --config FILE.yaml`: vLLM turns the YAML mapping into argv and splices it in
 * before the command-line flags, so the command line wins (research/configs-and-cli.md §2.3;
 * vllm/utils/argparse_utils.py `load_config_file`):
 *   scalar → `--key str(value)`; true → `--key`; false → `--no-key` only when that exact option
 *   exists (otherwise vLLM drops it silently — faultline says so); list → `--key item1 item2 …`
 *   (an empty list is dropped); mapping → `--key '<json>'`.
 * The file is read with YAML 1.1 rules (as PyYAML's safe_load does: `yes`/`on` are booleans) and
 * every produced token keeps its line:col in the file.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node, type Pair } from 'yaml';
import { UserError, type SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import type { PreparedToken } from './argv-token.js';
import type { FlagIndex } from './vllm-flags.js';
import { pythonStr } from './vllm-values.js';
import { setOwn } from './vllm-dotted-args.js';

export interface ConfigFileOptions {
  baseDir: string;
  readFile?: (path: string) => string;
  /** Where `--config FILE` was written, for errors about the file as a whole. */
  at?: SourceLocation;
  index: FlagIndex;
}

export function readConfigFileTokens(
  configPath: string,
  opts: ConfigFileOptions,
): { tokens: PreparedToken[]; notes: Located<string>[]; file: string } {
  const file = isAbsolute(configPath) ? configPath : join(opts.baseDir, configPath);
  const ext = configPath.split('.').pop() ?? '';
  if (ext !== 'yaml' && ext !== 'yml') {
    throw new UserError(`--config file must be a .yaml or .yml file, got "${configPath}"`, {
      code: 'E_VLLM_CONFIG',
      at: opts.at,
      hint: 'vLLM only reads YAML config files (it checks the extension)',
    });
  }
  let text: string;
  try {
    text = (opts.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(file);
  } catch (e) {
    throw new UserError(`cannot read --config file ${file}: ${(e as Error).message}`, {
      code: 'E_VLLM_CONFIG',
      at: opts.at,
      hint: 'the path is resolved relative to the launch file; check that the file exists there',
    });
  }
  return tokensFromYaml(text, file, opts.index);
}

/** The argv vLLM builds from the YAML text (exported for tests and for sources that inline YAML). */
export function tokensFromYaml(
  text: string,
  file: string,
  index: FlagIndex,
): { tokens: PreparedToken[]; notes: Located<string>[]; file: string } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { version: '1.1', lineCounter: lines, uniqueKeys: false });
  const locate = (offset: number): SourceLocation => {
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col };
  };
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    throw new UserError(`invalid YAML in --config file: ${err.message.split(' at line ')[0]}`, {
      code: 'E_VLLM_CONFIG',
      at: locate(err.pos[0]),
      hint: 'fix the YAML syntax (vLLM reads this file with a YAML parser and would fail the same way)',
    });
  }
  const root = doc.contents;
  if (!isMap(root)) {
    throw new UserError('--config file must hold a mapping of flag names to values', {
      code: 'E_VLLM_CONFIG',
      at: root?.range ? locate(root.range[0]) : { file, line: 1, column: 1 },
      hint: 'write one `flag-name: value` per line, e.g. `kv-cache-dtype: fp8`',
    });
  }
  const tokens: PreparedToken[] = [];
  const notes: Located<string>[] = [];
  for (const pair of root.items as Pair<Node, Node | null>[]) {
    const keyNode = pair.key;
    const keyAt = keyNode?.range ? locate(keyNode.range[0]) : { file, line: 1, column: 1 };
    if (!isScalar(keyNode) || typeof keyNode.value !== 'string') {
      throw new UserError('--config keys must be flag names (strings)', {
        code: 'E_VLLM_CONFIG',
        at: keyAt,
        hint: 'write the flag name without its leading dashes, e.g. `tensor-parallel-size: 2`',
      });
    }
    const key = keyNode.value;
    const valueNode = pair.value;
    const valueAt = valueNode?.range ? locate(valueNode.range[0]) : keyAt;
    const flag: PreparedToken = { text: `--${key}`, at: keyAt, origin: 'yaml' };
    if (isSeq(valueNode)) {
      if (valueNode.items.length === 0) {
        notes.push({ value: `${key}: [] is dropped by vLLM (an empty list adds no flag)`, at: keyAt });
        continue;
      }
      tokens.push(flag);
      for (const item of valueNode.items as Node[]) {
        const at = item?.range ? locate(item.range[0]) : valueAt;
        tokens.push({ text: scalarText(item, text), at, origin: 'yaml' });
      }
    } else if (isMap(valueNode)) {
      const keyPositions: Record<string, SourceLocation> = {};
      collectKeyPositions(valueNode, '', locate, keyPositions);
      const value = valueNode.toJSON() as unknown;
      tokens.push(flag, {
        text: JSON.stringify(value),
        at: valueAt,
        origin: 'yaml',
        preparsed: { value, keyAt: keyPositions },
      });
    } else {
      const value: unknown = isScalar(valueNode) ? valueNode.value : null;
      if (value === true) {
        tokens.push(flag);
      } else if (value === false) {
        const negated = `--no-${key}`;
        if (index.lookup(negated)) tokens.push({ text: negated, at: keyAt, origin: 'yaml' });
        else notes.push({ value: droppedFalseNote(key, index), at: keyAt });
      } else {
        tokens.push(flag, { text: scalarText(valueNode, text), at: valueAt, origin: 'yaml' });
      }
    }
  }
  return { tokens, notes, file };
}

/** Python `str()` of a YAML scalar, telling `2.0` (a float: "2.0") from `2`. */
function scalarText(node: Node | null, source: string): string {
  if (!isScalar(node)) return pythonStr(node ? (node.toJSON() as unknown) : null);
  const raw = node.range ? source.slice(node.range[0], node.range[1]) : '';
  const writtenAsFloat = typeof node.value === 'number' && /[.eE]/.test(raw) && !/^[-+]?0x/i.test(raw);
  return pythonStr(node.value, writtenAsFloat);
}

function droppedFalseNote(key: string, index: FlagIndex): string {
  const dashed = `--no-${key.replace(/_/g, '-')}`;
  if (key.includes('_') && index.lookup(dashed)) {
    return `${key}: false is dropped by vLLM: it looks for the option --no-${key} literally, which does not exist; write the key with dashes (${key.replace(/_/g, '-')}: false)`;
  }
  return `${key}: false is dropped by vLLM (there is no --no-${key} option), so the setting keeps its default`;
}

function collectKeyPositions(
  map: Node,
  prefix: string,
  locate: (offset: number) => SourceLocation,
  out: Record<string, SourceLocation>,
): void {
  if (!isMap(map)) return;
  for (const pair of map.items as Pair<Node, Node | null>[]) {
    if (!isScalar(pair.key)) continue;
    const path = prefix ? `${prefix}.${String(pair.key.value)}` : String(pair.key.value);
    if (pair.key.range) setOwn(out, path, locate(pair.key.range[0]));
    if (pair.value) collectKeyPositions(pair.value, path, locate, out);
  }
}

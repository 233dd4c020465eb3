/**
 * YAML files with positions: multi-document parsing, syntax errors as UserErrors that say
 * file:line:col, and small accessors that return values together with where they were written.
 */
import { isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node, type Scalar } from 'yaml';
import { UserError, type SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ArgField } from './arg-field.js';
import { fileLocator, type Locate } from './text-position.js';
import { scalarCharOffsets } from './yaml-scalar-offsets.js';

export interface YamlFile {
  file: string;
  text: string;
  docs: Document.Parsed[];
  locate: Locate;
}

export function parseYamlFile(file: string, text: string): YamlFile {
  const locate = fileLocator(file, text);
  const parsed = parseAllDocuments(text, { prettyErrors: false, keepSourceTokens: false });
  const docs = Array.isArray(parsed) ? parsed : [];
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) {
      throw new UserError(`YAML syntax error: ${err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`, {
        code: 'E_YAML_SYNTAX',
        at: locate(err.pos[0]),
        hint: `fix the YAML here (${err.code}); a linter such as yamllint shows the same position`,
      });
    }
  }
  return { file, text, docs, locate };
}

export function locOf(y: YamlFile, node: unknown): SourceLocation | undefined {
  const range = (node as Node | undefined)?.range;
  return range ? y.locate(range[0]) : undefined;
}

/** The value node under `key` of a mapping (undefined for anything else). */
export function mapGet(node: unknown, key: string): Node | undefined {
  if (!isMap(node)) return undefined;
  for (const pair of node.items) {
    const k = isScalar(pair.key) ? pair.key.value : pair.key;
    if (k === key) return (pair.value ?? undefined) as Node | undefined;
  }
  return undefined;
}

/** Follows a path of keys through nested mappings. */
export function mapPath(node: unknown, ...keys: string[]): Node | undefined {
  let n: unknown = node;
  for (const k of keys) n = mapGet(n, k);
  return n as Node | undefined;
}

export function mapKeyNode(node: unknown, key: string): Node | undefined {
  if (!isMap(node)) return undefined;
  return node.items.find((p) => isScalar(p.key) && p.key.value === key)?.key as Node | undefined;
}

export function mapEntries(node: unknown): { key: string; keyNode: Node; value: Node | undefined }[] {
  if (!isMap(node)) return [];
  return node.items.flatMap((p) =>
    isScalar(p.key) ? [{ key: String(p.key.value), keyNode: p.key as Node, value: (p.value ?? undefined) as Node | undefined }] : [],
  );
}

export function seqItems(node: unknown): Node[] {
  return isSeq(node) ? (node.items as Node[]) : [];
}

/**
 * A scalar as text the way a program receiving it would see it: strings as decoded, other plain
 * scalars as written (`0.90` stays "0.90", `8000` stays "8000"), null → undefined.
 */
export function scalarText(y: YamlFile, node: unknown): string | undefined {
  if (!isScalar(node) || node.value === null || node.value === undefined) return undefined;
  if (typeof node.value === 'string') return node.value;
  if (node.type === 'PLAIN' && node.range) return y.text.slice(node.range[0], node.range[1]);
  return String(node.value);
}

export function locatedText(y: YamlFile, node: unknown): Located<string> | undefined {
  const text = scalarText(y, node);
  if (text === undefined) return undefined;
  const at = locOf(y, node);
  return at ? { value: text, at } : { value: text };
}

/** A scalar as an argv word, with a per-character map when the scalar can be re-decoded exactly. */
export function scalarField(y: YamlFile, node: unknown): ArgField | undefined {
  const text = scalarText(y, node);
  if (text === undefined) return undefined;
  const at = locOf(y, node);
  // Computed on first use: only words that turn out to be scripts (`sh -c …`) need it.
  let offsets: number[] | null | undefined;
  const charAt = (i: number) => {
    if (offsets === undefined) offsets = (isScalar(node) && scalarCharOffsets(y.text, node as Scalar)) || null;
    return offsets ? y.locate(offsets[Math.min(i, offsets.length - 1)] ?? 0) : at;
  };
  return { text, at, charAt };
}

/** A list of scalars (`args: [...]`), or a single scalar as a one-element list. */
export function scalarFields(y: YamlFile, node: unknown): ArgField[] {
  if (isSeq(node)) return node.items.flatMap((n) => scalarField(y, n) ?? []);
  const one = scalarField(y, node);
  return one ? [one] : [];
}

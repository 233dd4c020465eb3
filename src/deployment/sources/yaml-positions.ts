/**
 * YAML files with positions: multi-document parsing, syntax errors as UserErrors that say
 * file:line:col, and small accessors that return values together with where they were written.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  parseAllDocuments,
  visit,
  type Document,
  type Node,
  type Scalar,
} from 'yaml';
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

/** `locate` maps offsets of `text` to where they were written (a YAML document inside a YAML string: a ConfigMap's data). */
export function parseYamlFile(file: string, text: string, locate: Locate = fileLocator(file, text)): YamlFile {
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
  // An alias is written `*name`: a file without `*` has none to walk for.
  if (text.includes('*'))
    for (const doc of docs)
      visit(doc, {
        Alias(_, alias) {
          const target = alias.resolve(doc);
          if (target) aliasTargets.set(alias, target as Node);
        },
      });
  return { file, text, docs, locate };
}

/** `*name` → the node its anchor `&name` marks, filled in as files are parsed. */
const aliasTargets = new WeakMap<object, Node>();

/** A node with an alias (`*name`) replaced by the node it refers to, as a YAML loader gives it to a program. */
export function deref(node: unknown): Node | undefined {
  return (isAlias(node) ? aliasTargets.get(node) : node) as Node | undefined;
}

/** The mappings a `<<: *base` / `<<: [*a, *b]` merge key brings into a mapping, nearest first. */
function mergedMaps(node: unknown): Node[] {
  if (!isMap(node)) return [];
  return node.items.flatMap((p) => {
    if (!isScalar(p.key) || p.key.value !== '<<') return [];
    const v = deref(p.value);
    return isSeq(v) ? v.items.map(deref).filter((m): m is Node => isMap(m)) : isMap(v) ? [v] : [];
  });
}

export function locOf(y: YamlFile, node: unknown): SourceLocation | undefined {
  const range = (node as Node | undefined)?.range;
  return range ? y.locate(range[0]) : undefined;
}

/** The value node under `key` of a mapping (undefined for anything else). */
export function mapGet(node: unknown, key: string): Node | undefined {
  node = deref(node);
  if (!isMap(node)) return undefined;
  for (const pair of node.items) {
    const k = isScalar(pair.key) ? pair.key.value : pair.key;
    if (k === key) return deref(pair.value ?? undefined);
  }
  for (const base of mergedMaps(node)) {
    const v = mapGet(base, key);
    if (v !== undefined) return v;
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
  node = deref(node);
  if (!isMap(node)) return undefined;
  return node.items.find((p) => isScalar(p.key) && p.key.value === key)?.key as Node | undefined;
}

/** A mapping's entries in order, with the entries its merge keys (`<<: *base`) bring in that it does not set itself. */
export function mapEntries(node: unknown): { key: string; keyNode: Node; value: Node | undefined }[] {
  node = deref(node);
  if (!isMap(node)) return [];
  const own = node.items.flatMap((p) =>
    isScalar(p.key) && p.key.value !== '<<'
      ? [{ key: String(p.key.value), keyNode: p.key as Node, value: deref(p.value ?? undefined) }]
      : [],
  );
  const seen = new Set(own.map((e) => e.key));
  const merged = mergedMaps(node).flatMap((base) =>
    mapEntries(base).filter((e) => !seen.has(e.key) && (seen.add(e.key), true)),
  );
  return [...merged, ...own];
}

export function seqItems(node: unknown): Node[] {
  node = deref(node);
  return isSeq(node) ? (node.items as unknown[]).flatMap((n) => deref(n) ?? []) : [];
}

/**
 * A scalar as text the way a program receiving it would see it: strings as decoded, other plain
 * scalars as written (`0.90` stays "0.90", `8000` stays "8000"), null → undefined.
 */
export function scalarText(y: YamlFile, node: unknown): string | undefined {
  node = deref(node);
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
  node = deref(node);
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
  node = deref(node);
  if (isSeq(node)) return node.items.flatMap((n) => scalarField(y, n) ?? []);
  const one = scalarField(y, node);
  return one ? [one] : [];
}

/** A node as the plain data a YAML loader hands a program: aliases followed, merge keys applied. */
export function plainData(node: unknown): unknown {
  const n = deref(node);
  if (isMap(n)) return Object.fromEntries(mapEntries(n).map((e) => [e.key, plainData(e.value)]));
  if (isSeq(n)) return seqItems(n).map(plainData);
  return isScalar(n) ? n.value : null;
}

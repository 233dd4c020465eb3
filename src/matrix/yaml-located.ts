/**
 * A YAML document as plain data plus a way back from a data path to file:line:col, so every
 * problem in a plan can be reported where it was written.
 */
import { isAlias, isCollection, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import { UserError, type SourceLocation } from '../core/errors.js';

export type DataPath = readonly (string | number)[];

export interface LocatedYaml {
  data: unknown;
  /** Where the value at `path` was written (the nearest existing ancestor when it is missing). */
  at(path: DataPath): SourceLocation;
  /** Where the mapping key at the end of `path` was written (for "unknown key" problems). */
  keyAt(path: DataPath): SourceLocation;
  /**
   * Keys of the mapping at `path` in written order. (A JavaScript object lists integer-like
   * keys first, so `{na, 3, 7}` would come back as `3, 7, na` from the parsed data.)
   */
  keysAt(path: DataPath): string[];
}

export function parseLocatedYaml(file: string, text: string): LocatedYaml {
  const lines = new LineCounter();
  const doc: Document.Parsed = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const toLoc = (offset: number): SourceLocation => {
    const p = lines.linePos(offset);
    return { file, line: p.line, column: p.col };
  };
  const err = doc.errors[0];
  if (err) {
    throw new UserError(`YAML syntax error: ${err.message.split('\n')[0]}`, {
      code: 'E_PLAN_YAML',
      at: toLoc(err.pos[0]),
      hint: 'fix the YAML at this position',
    });
  }
  // A mapping or sequence as a key has no plain-data form (the yaml library would stringify it with a warning).
  visit(doc, {
    Pair(_, pair) {
      if (isCollection(pair.key))
        throw new UserError(`a ${isMap(pair.key) ? 'mapping' : 'sequence'} is used as a key`, {
          code: 'E_PLAN_YAML',
          at: toLoc(pair.key.range?.[0] ?? 0),
          hint: 'keys are plain names or values; a YAML `? ` line or `[a, b]:` / `{a: b}:` makes a collection key',
        });
    },
  });
  // Walks by text so that `16:` (a number key in YAML) matches the data path segment "16".
  const resolve = (node: Node | undefined): Node | undefined => (isAlias(node) ? (node.resolve(doc) as Node | undefined) : node);
  const child = (at: Node | undefined, segment: string | number): Node | undefined => {
    const node = resolve(at);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      return (pair?.value ?? undefined) as Node | undefined;
    }
    if (isSeq(node) && typeof segment === 'number') return (node.items[segment] ?? undefined) as Node | undefined;
    return undefined;
  };
  const nodeAt = (path: DataPath): Node | undefined => {
    let node = (doc.contents ?? undefined) as Node | undefined;
    for (const segment of path) {
      const next = child(node, segment);
      if (next === undefined) return node;
      node = next;
    }
    return node;
  };
  const start = (node: Node | undefined): SourceLocation => toLoc(node?.range?.[0] ?? 0);
  return {
    data: doc.toJS({ maxAliasCount: 100 }),
    at: (path) => start(nodeAt(path)),
    keysAt: (path) => {
      const node = resolve(nodeAt(path));
      return isMap(node) ? node.items.flatMap((p) => (isScalar(p.key) ? [String(p.key.value)] : [])) : [];
    },
    keyAt: (path) => {
      const parent = nodeAt(path.slice(0, -1));
      const key = path[path.length - 1];
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
        if (pair && isScalar(pair.key)) return start(pair.key as Node);
      }
      return start(parent);
    },
  };
}

/**
 * Reading a JSON input for the report: a parse error or a schema mismatch becomes a UserError
 * with file:line:col and a hint. Locations of schema problems come from re-reading the text with
 * `yaml` (JSON is YAML 1.2), which keeps source ranges; that only happens on the error path.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isMap, isSeq, type Node } from 'yaml';
import type { z } from 'zod';
import { UserError, type SourceLocation } from '../../core/errors.js';

export function readInputText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      code: 'E_REPORT_INPUT',
      hint: 'pass a JSON file written by faultline (lint/probe --format json, kernel verify --json) or a matrix run directory',
    });
  }
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1, start = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  return { line, column: offset - start + 1 };
}

export function parseJsonText(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const m = /position (\d+)/.exec(message);
    const at: SourceLocation = { file: path, ...(m ? lineColumn(text, Number(m[1])) : { line: 1, column: 1 }) };
    throw new UserError(`not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}`, {
      code: 'E_REPORT_INPUT',
      at,
      hint: 'the report reads the JSON faultline writes; was the file cut short or edited by hand?',
    });
  }
}

/** Where a JSON path (keys and indexes) starts in the text; the file start when it cannot be found. */
export function locateJsonPath(path: string, text: string, jsonPath: readonly PropertyKey[]): SourceLocation {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, keepSourceTokens: false });
  let node: unknown = doc.contents;
  let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
  for (const key of jsonPath) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      if (pair) offset = (pair.key as Node).range?.[0] ?? offset;
      next = pair?.value;
    } else if (isSeq(node) && typeof key === 'number') next = node.items[key];
    if (!next) break;
    node = next;
    offset = (next as Node).range?.[0] ?? offset;
  }
  const { line, col } = counter.linePos(offset);
  return { file: path, line, column: col };
}

export function formatJsonPath(jsonPath: readonly PropertyKey[]): string {
  return jsonPath.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`)).join('') || '(top level)';
}

/** Validates parsed JSON against a schema; the first problem becomes a located UserError. */
export function validateInput<S extends z.ZodType>(
  path: string,
  text: string,
  value: unknown,
  schema: S,
  what: string,
  hint: string,
): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new UserError(`not a valid ${what}: ${formatJsonPath(issue.path)}: ${issue.message}`, {
    code: 'E_REPORT_INPUT',
    at: locateJsonPath(path, text, issue.path),
    hint,
  });
}

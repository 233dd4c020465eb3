/**
 * Shared by the source tests: reads a launch-config fixture (test/fixtures/launch-configs, copied
 * from the shared fixture set with provenance in its README) and renders launches compactly.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LaunchCommand } from './launch-command.js';
import type { SourceFile } from './collect.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/launch-configs/', import.meta.url));

/** A fixture as a SourceFile whose display path is relative to the repository root. */
export function fixture(name: string): SourceFile {
  const absPath = FIXTURES + name;
  return { path: relative(root, absPath), absPath, baseDir: dirname(absPath), text: readFileSync(absPath, 'utf8') };
}

export function texts(l: LaunchCommand): string[] {
  return l.tokens.map((t) => t.text);
}

/** "line:col" of the first token with this text. */
export function where(l: LaunchCommand, text: string): string {
  const t = l.tokens.find((x) => x.text === text);
  return t?.at ? `${t.at.line}:${t.at.column}` : 'missing';
}

export function envObject(l: LaunchCommand): Record<string, string> {
  return Object.fromEntries([...l.env].map(([k, v]) => [k, v.value]));
}

/** An in-memory launch file. */
export function memoryFile(path: string, text: string): SourceFile {
  return { path, absPath: `/work/${path}`, baseDir: '/work', text };
}

/**
 * What kind of launch file a path holds, from its name first and its content second.
 * YAML (and JSON, which is YAML) covers Kubernetes, KServe, Helm values, Compose and vLLM
 * config files — which of those is decided per document (collect.ts); everything else is
 * read as a shell script, the form most launch commands are written in.
 */
import { basename, extname } from 'node:path';

export type FileKind = 'shell' | 'yaml';

const YAML_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const SHELL_EXTENSIONS = new Set(['.sh', '.bash', '.zsh', '.ksh', '.command', '.env']);

export function detectFileKind(path: string, text: string): FileKind {
  const ext = extname(path).toLowerCase();
  if (YAML_EXTENSIONS.has(ext)) return 'yaml';
  if (SHELL_EXTENSIONS.has(ext) || text.startsWith('#!')) return 'shell';
  if (/^(docker-)?compose/i.test(basename(path))) return 'yaml';
  const firstLine = text.split('\n').find((l) => l.trim() !== '' && !l.trimStart().startsWith('#')) ?? '';
  if (/^(---|\s*-\s|[A-Za-z_][\w./-]*:(\s|$)|\{)/.test(firstLine)) return 'yaml';
  return 'shell';
}

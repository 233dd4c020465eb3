/**
 * The words after a literal `--` on the command line (`faultline lint -- vllm serve M …`).
 * Commander hands them to the action as trailing operands, indistinguishable from files; the
 * root command keeps the raw argv it parsed, so the tail after the first `--` is read from there.
 */
import type { Command } from 'commander';

export function splitDashDash(
  cmd: Command,
  operands: string[],
): { before: string[]; after: string[] | undefined } {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  const raw = (root as unknown as { rawArgs?: string[] }).rawArgs ?? [];
  const i = raw.indexOf('--');
  if (i < 0) return { before: operands, after: undefined };
  const after = raw.slice(i + 1);
  // Commander appends everything after `--` to the operands; keep only what came before it.
  const n = operands.length - after.length;
  const tailMatches = n >= 0 && after.every((w, k) => operands[n + k] === w);
  return tailMatches ? { before: operands.slice(0, n), after } : { before: operands, after: undefined };
}

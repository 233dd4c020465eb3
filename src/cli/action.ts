import type { Command } from 'commander';

/**
 * Each command's action returns its exit code; main() reads it back from here.
 * Exit codes: 0 clean, 1 findings/corruption, 2 usage or input error, 3 command-specific (refused, inconclusive).
 */
export type ExitCode = number;

const exitCodes = new WeakMap<Command, ExitCode>();

export function setExitCode(program: Command, code: ExitCode): void {
  exitCodes.set(program, code);
}

export function getExitCode(program: Command): ExitCode {
  return exitCodes.get(program) ?? 0;
}

import type { Command } from 'commander';
import type { CliIO } from '../io.js';

/** A command module adds its subcommand to the program; `exit` records the command's exit code. */
export type RegisterCommand = (program: Command, io: CliIO, exit: (code: number) => void) => void;

/**
 * A command by its name, its module loaded on demand: a command line that names one command loads
 * only that command's code (lint does not pay for the server, the probe client or the plan schemas
 * at start-up).
 */
export interface CommandModule {
  name: string;
  load: () => Promise<RegisterCommand>;
}

/** Every command, in the order `--help` lists them. Add one line per new command file. */
export const commandModules: CommandModule[] = [
  { name: 'lint', load: async () => (await import('./lint.js')).registerLint },
  { name: 'guard', load: async () => (await import('./guard.js')).registerGuard },
  { name: 'engine', load: async () => (await import('./engine.js')).registerEngine },
  { name: 'probe', load: async () => (await import('./probe.js')).registerProbe },
  { name: 'plan', load: async () => (await import('./plan.js')).registerPlan },
  { name: 'matrix', load: async () => (await import('./matrix.js')).registerMatrix },
  { name: 'kernel', load: async () => (await import('./kernel.js')).registerKernel },
  { name: 'report', load: async () => (await import('./report.js')).registerReport },
];

/**
 * The commands a command line needs: the one its first word names, else all of them (the program's
 * own --help and --version, `help CMD`, or a word commander answers with "did you mean").
 */
export async function commandsFor(argv: readonly string[]): Promise<RegisterCommand[]> {
  const named = commandModules.find((m) => m.name === argv[0]);
  return Promise.all((named ? [named] : commandModules).map((m) => m.load()));
}

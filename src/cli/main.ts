#!/usr/bin/env node
/**
 * faultline's command line: argv → one command; each command returns its exit code.
 * A UserError becomes "error: file:line:col: message" + a hint and exit 2; any other exception
 * is a faultline bug: one line saying so, the stack only with FAULTLINE_DEBUG=1, exit 2.
 */
import { Command, CommanderError } from 'commander';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describeUserError, isUserError } from '../core/errors.js';
import { getExitCode, setExitCode } from './action.js';
import { processIO, type CliIO } from './io.js';
import { commandsFor } from './commands/index.js';
import { versionText } from './version-line.js';

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const program = new Command('faultline');
  program
    .description('Find and prevent silent output corruption in LLM serving.')
    .version(versionText(), '-V, --version', 'print the version and the hazard catalog version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride();
  try {
    for (const register of await commandsFor(argv)) register(program, io, (code) => setExitCode(program, code));
    await program.parseAsync(argv, { from: 'user' });
    return getExitCode(program);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      // a command group without its subcommand: the help went to stderr, and it is a usage error
      if (e.code === 'commander.help' && e.exitCode !== 0) {
        io.err('error: a command is needed (see the list above)\n');
        return 2;
      }
      if (e.code === 'commander.help') return 0;
      return 2;
    }
    if (isUserError(e)) {
      io.err(describeUserError(e) + '\n');
      return 2;
    }
    const err = e as Error;
    io.err(`faultline: internal error: ${err?.message ?? String(e)}\n`);
    if (io.env.FAULTLINE_DEBUG) io.err(`${err?.stack ?? ''}\n`);
    else io.err('hint: this is a bug in faultline; rerun with FAULTLINE_DEBUG=1 for the stack and report it\n');
    return 2;
  }
}

const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
})();
if (invokedDirectly) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

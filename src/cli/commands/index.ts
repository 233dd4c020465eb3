import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { registerEngine } from './engine.js';
import { registerGuard } from './guard.js';
import { registerKernel } from './kernel.js';
import { registerLint } from './lint.js';
import { registerMatrix } from './matrix.js';
import { registerPlan } from './plan.js';
import { registerProbe } from './probe.js';
import { registerReport } from './report.js';

/** A command module adds its subcommand to the program; `exit` records the command's exit code. */
export type RegisterCommand = (program: Command, io: CliIO, exit: (code: number) => void) => void;

/** Every command, in the order `--help` lists them. Add one line per new command file. */
export const commandModules: RegisterCommand[] = [registerLint, registerGuard, registerEngine, registerProbe, registerPlan, registerMatrix, registerKernel, registerReport];

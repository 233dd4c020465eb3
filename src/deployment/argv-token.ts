/**
 * One command-line argument as the launched process receives it, plus where it was written.
 * Sources (shell scripts, manifests, compose files) produce these; the vLLM argv emulation
 * consumes them, so every parsed fact can point back at file:line:col.
 */
import type { SourceLocation } from '../core/errors.js';
import type { RuntimeValue } from './vllm-parse-types.js';

export interface ArgToken {
  /** The argument after all shell/YAML unquoting: exactly what argv[i] would hold. */
  text: string;
  at?: SourceLocation;
  /** Part of the word is known only at run time (then `text` keeps it as written). */
  runtime?: RuntimeValue;
  /** An unquoted run-time expansion (`$EXTRA_ARGS`): it may stand for any number of arguments. */
  spread?: boolean;
}

/**
 * Tokens for a plain argv (e.g. `faultline lint -- vllm serve …`): there is no file, so the
 * location is line 1 and the column is the argument's 1-based index.
 */
export function tokensFromArgv(argv: string[], file = '<argv>'): ArgToken[] {
  return argv.map((text, i) => ({ text, at: { file, line: 1, column: i + 1 } }));
}

/**
 * A token inside the vLLM argv emulation, after `--config` expansion and dotted-key merging.
 * `preparsed` carries a value that already exists as data (a YAML mapping, a merged dotted-key
 * object) so it is not re-parsed from text, together with where each of its keys was written.
 */
export interface PreparedToken extends ArgToken {
  /** Where the token came from: the command line, a `--config` YAML file, or merged dotted keys. */
  origin: 'cli' | 'yaml' | 'dotted';
  preparsed?: { value: unknown; keyAt: Record<string, SourceLocation> };
  /** This option token means this dest whatever its spelling (legacy `-O.key` → compilation_config). */
  forcedDest?: string;
}

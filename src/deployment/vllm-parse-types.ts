/** The result and options of the vLLM argv emulation (vllm-args.ts), shared by its parts. */
import type { SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import type { FlagSpec } from './vllm-flags.js';

export interface ParseVllmOptions {
  /** Directory that relative `--config` paths are resolved against (the launch file's directory). */
  baseDir: string;
  /** Reads a `--config` file; defaults to the file system. */
  readFile?: (path: string) => string;
  /** Record unknown flags as notes only (no flag problem for lint's FL000). */
  allowUnknown?: boolean;
  /** The launch's vLLM version: picks the flag table (vllm-flag-table.ts); newest when absent. */
  vllmVersion?: string;
  /** Flags beyond vLLM's (the engine's `--emulate`, …); they win over built-in flags of the same dest. */
  extraFlags?: readonly FlagSpec[];
}

/** A value known only when the launch runs (a shell variable its caller sets, `$(cmd)`, `$((A*B))`). */
export interface RuntimeValue {
  /** The word as written, e.g. `$TP` or `$((NUM_GPUS / 2))`. */
  text: string;
  /** Why it is unknown here. */
  why: string;
  /** Variables that would settle it (`--set NAME=VALUE`). */
  names: string[];
}

/** A parsed argument. JSON flags also say where each (dotted) sub-key was written: `keyAt['backend']`. */
export interface ArgValue extends Located<unknown> {
  keyAt?: Record<string, SourceLocation>;
  /** The value is known only at run time; `value` then holds the text as written. */
  runtime?: RuntimeValue;
  /** JSON flags: sub-keys (dotted) whose values are known only at run time; they hold the text as written. */
  runtimeKeys?: Record<string, RuntimeValue>;
}

/**
 * Something in the launch the engine would not take as written, or that faultline's tables do not
 * know: an option not in the flag table, an ambiguous abbreviation, a choice outside the flag's
 * choices, a JSON sub-key or sub-key value outside the config fields faultline has. Lint reports
 * each as FL000 and reads the rest of the launch.
 */
export interface FlagProblem {
  /**
   * `removed`: an option the table still names but whose handler only refuses (llama.cpp's
   * arg_removed); `value`: a value the engine's parser cannot convert or a missing value
   * (llama.cpp's std::stoi, "expected value for argument").
   */
  kind: 'unknown' | 'ambiguous' | 'choice' | 'sub-key' | 'sub-key-value' | 'removed' | 'value';
  /** The option as written (before `=`); for sub-keys, the dotted path (`speculative_config.method`). */
  option: string;
  at?: SourceLocation;
  /** The value as written, for `choice` and `sub-key-value`. */
  value?: string;
  /** "did you mean" for unknown flags and values; the candidates for ambiguous ones. */
  suggestion?: string;
  candidates?: string[];
  /** Releases (by faultline's tables) that do have the option. */
  knownIn?: string[];
  /**
   * The table it was checked against is the launch's own release: the engine refuses it for
   * certain. Unset for `unknown`, whose certainty is the flag table's (`flagTable.authoritative`).
   */
  definite?: boolean;
  /** What the value or key was checked against, for the finding: "vLLM 0.27.1's --kv-cache-dtype choices". */
  checkedAgainst?: string;
}

export interface VllmParse {
  engine: 'vllm';
  /** How the server was started: `vllm serve`, the api_server module, or a bare flag list. */
  entryPoint: 'serve' | 'api_server' | 'args';
  /** Where the command starts (the `vllm` / `python` token), when parsed from a command. */
  at?: SourceLocation;
  model?: Located<string>;
  /** argparse dest → value; JSON flags hold the (merged) object. */
  args: Map<string, ArgValue>;
  notes: Located<string>[];
  /** Flags vLLM would refuse (FL000), with the table they were checked against. */
  flagProblems: FlagProblem[];
  flagTable: { release: string; commit: string; authoritative: boolean; describes: string };
}

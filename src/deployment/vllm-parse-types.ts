/** The result and options of the vLLM argv emulation (vllm-args.ts), shared by its parts. */
import type { SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import type { FlagSpec } from './vllm-flags.js';

export interface ParseVllmOptions {
  /** Directory that relative `--config` paths are resolved against (the launch file's directory). */
  baseDir: string;
  /** Reads a `--config` file; defaults to the file system. */
  readFile?: (path: string) => string;
  /** Record unknown flags as notes instead of failing (exit 2). */
  allowUnknown?: boolean;
  /** Flags beyond vLLM's (the engine's `--emulate`, …); they win over built-in flags of the same dest. */
  extraFlags?: readonly FlagSpec[];
}

/** A parsed argument. JSON flags also say where each (dotted) sub-key was written: `keyAt['backend']`. */
export interface ArgValue extends Located<unknown> {
  keyAt?: Record<string, SourceLocation>;
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
}

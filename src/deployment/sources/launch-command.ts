/**
 * What every launch-file source produces: one vLLM command line as argv tokens, each with the
 * file:line:col it was written at, plus the environment and GPU hints that travel with it.
 * `load.ts` turns a LaunchCommand into a Deployment through its engine's argv emulation (vLLM,
 * SGLang, llama-server; Ollama reads its environment).
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ArgToken } from '../argv-token.js';
import type { LaunchSource } from '../deployment.js';
import type { FlagSpec } from '../vllm-flags.js';
import type { Modelfile } from '../engines/ollama/modelfile.js';

export type { ArgToken };

/** A file the launch file itself writes (a heredoc), so `--config` can read it without the disk. */
export interface VirtualFile {
  text: string;
  /** Where line:column (1-based) of `text` was written in the launch file. */
  locate(line: number, column: number): SourceLocation | undefined;
}

export interface LaunchCommand {
  source: LaunchSource;
  /** The command, starting at `vllm` (or a path ending in /vllm) or `python…`. */
  tokens: ArgToken[];
  /** Environment that reaches the server process. */
  env: Map<string, Located<string>>;
  /** Raw GPU product names from the launch's context (k8s node labels …), for gpu.ts to map. */
  gpuHints: Located<string>[];
  /** Directory relative paths (`--config x.yaml`, a local model dir) are resolved against. */
  baseDir: string;
  /** Files written by the launch file before the command runs, keyed by absolute path. */
  files: Map<string, VirtualFile>;
  /** Container image, when the launch runs in one (its tag may name the vLLM version). */
  image?: Located<string>;
  /** Container path → host path (docker -v), to find a mounted model directory on this machine. */
  mounts: { container: string; host: string }[];
  /** The model as the platform knows it when the argv only names a mount point (KServe storageUri). */
  modelHint?: Located<string>;
  /** Things the source noticed that the user should know (unknown variables, secret-backed env …). */
  notes: Located<string>[];
  /** The launch's role in a multi-role deployment ("decode", "prefill", "leader", "worker" …). */
  role?: string;
  /** Flags the launching wrapper adds to vLLM's (Dynamo's worker flags). */
  extraFlags?: readonly FlagSpec[];
  /** Set when the file runs something recognised that is not a vLLM server launch: what it is. */
  notLaunch?: Located<string>;
  /** An Ollama Modelfile (a model definition, read as one; `tokens` is empty). */
  modelfile?: Modelfile;
  /** Models the file has an Ollama server pull or run (a postStart hook, a chart's model list). */
  ollamaModels?: Located<string>[];
}

export function newLaunch(source: LaunchSource, tokens: ArgToken[], baseDir: string): LaunchCommand {
  return { source, tokens, env: new Map(), gpuHints: [], baseDir, files: new Map(), mounts: [], notes: [] };
}

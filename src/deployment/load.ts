/**
 * Launch files or an argv → Deployments: the entry point of `faultline lint` and `guard`.
 *
 * Files: read, sorted into shell / YAML sources (sources/collect.ts), one Deployment per vLLM
 * launch found. A file with no launch is not an error on its own — a manifest directory holds
 * Services and ConfigMaps too — but when none of the given files holds a launch, that is a
 * UserError (exit 2): linting nothing must not look like a clean result.
 *
 * Argv (`faultline lint -- vllm serve MODEL …`, guard's COMMAND): the same launch detection as
 * for a line of a script (wrappers such as `env A=B`, `docker run`, `sh -c` are looked through).
 *
 * Flags vLLM does not know are errors (E_VLLM_UNKNOWN_FLAG, exit 2), as vLLM would refuse them,
 * unless `allowUnknownFlags` turns them into notes.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import type { Located } from '../core/located.js';
import { tokensFromArgv } from './argv-token.js';
import type { Deployment } from './deployment.js';
import { assembleDeployment, type AssembleOptions } from './sources/assemble.js';
import { collectLaunches, type SourceFile } from './sources/collect.js';
import { findLaunch } from './sources/launch-start.js';
import { newLaunch, type LaunchCommand } from './sources/launch-command.js';
import { launchesFromShell, positionalFrom, type GivenValues } from './sources/shell.js';

export interface LoadOptions {
  modelConfig?: string;
  gpu?: string;
  vllmVersion?: string;
  flashinferVersion?: string;
  sglangVersion?: string;
  llamaCppVersion?: string;
  cwd: string;
  /** Environment the argv runs with (guard: the real one). Ignored for files, whose env is in the file. */
  env?: Record<string, string | undefined>;
  /** Record flags vLLM does not know as notes only, with no FL000 (the CLI's --allow-unknown-flags). */
  allowUnknownFlags?: boolean;
  /** Values for what launch files leave to run time: `--set NAME=VALUE` (variables), `--env NAME=VALUE` (exported). */
  set?: Record<string, string>;
  setEnv?: Record<string, string>;
}

export interface LoadResult {
  deployments: Deployment[];
  /** Given files in which no launch was found (lint should say so). */
  filesWithoutLaunch: string[];
  /** Remarks about files as a whole (e.g. a YAML document of no known format). */
  notes: Located<string>[];
  /** What was recognised that is not a vLLM server launch (a benchmark client, an SGLang server …). */
  notLaunches: Located<string>[];
  /** Files that are recognisably not launches (a recipe's metadata …), with what they are. */
  notLaunchFiles: Located<string>[];
}

const SUPPORTED =
  'faultline reads vLLM launches from shell scripts (`vllm serve …`, `python -m vllm.entrypoints.openai.api_server …`, ' +
  '`docker run … vllm serve …`), Kubernetes / LeaderWorkerSet / KServe manifests, production-stack Helm values, ' +
  'Docker Compose files and vLLM --config YAML files; SGLang, llama.cpp\'s llama-server and `ollama serve` launches from the same ' +
  'files and from Dockerfiles, systemd units, llama-swap configs, Ollama chart values, NixOS modules and Modelfiles';

/** Every launch in the files, with the files that had none. Throws only for unreadable or malformed input. */
export function loadLaunchFiles(paths: string[], opts: LoadOptions): LoadResult {
  const files = paths.map((p) => readSource(p, opts.cwd));
  const collected = collectLaunches(files, givenValues(opts));
  const displayPaths = new Map(files.map((f) => [f.absPath, f.path]));
  const shared = { ...assembleOptions(opts), displayPaths }; // one object: --model-config is read once per load
  const deployments = collected.launches.map((l) => assembleDeployment(l, shared));
  const filesWithoutLaunch = [...collected.perFile].filter(([, n]) => n === 0).map(([path]) => path);
  return {
    deployments,
    filesWithoutLaunch,
    notes: collected.notes,
    notLaunches: collected.notLaunches,
    notLaunchFiles: collected.notLaunchFiles,
  };
}

/** Deployments of all launches in the files; a UserError when none of the files holds one. */
export function loadDeployments(paths: string[], opts: LoadOptions): Deployment[] {
  const result = loadLaunchFiles(paths, opts);
  if (result.deployments.length === 0) {
    const which = result.filesWithoutLaunch.join(', ');
    const other = result.notLaunchFiles[0];
    if (other)
      throw new UserError(`not a launch: ${other.at?.file ?? which} is ${other.value}`, {
        code: 'E_NOT_A_LAUNCH',
        at: other.at,
        hint: 'lint checks files that start a server (shell scripts, manifests, Compose files, vLLM --config YAML); give the launch itself, or the command after --',
      });
    const seen = result.notLaunches[0];
    if (seen)
      throw new UserError(`no vLLM server launch in ${which}: it runs ${seen.value}`, {
        code: 'E_NOT_A_LAUNCH',
        at: seen.at,
        hint: 'lint checks server launches; give the file that starts the vLLM server (vllm serve …)',
      });
    throw new UserError(`no launch found in ${which}`, {
      code: 'E_NO_LAUNCH',
      at: result.notes[0]?.at,
      hint: SUPPORTED,
    });
  }
  return result.deployments;
}

/** The launch an argv runs (`vllm serve MODEL …`, or through env/docker/sh -c wrappers). */
export function deploymentFromArgv(argv: string[], opts: LoadOptions): Deployment {
  const tokens = tokensFromArgv(argv);
  const source = { file: '<argv>', kind: 'argv' as const };
  const match = findLaunch(tokens);
  // Not a launch we can find: the argv parser says precisely why (E_NOT_VLLM).
  if (!match) return assembleDeployment(newLaunch(source, tokens, opts.cwd), assembleOptions(opts));
  if (match.notLaunch)
    throw new UserError(`not a vLLM server launch: the command runs ${match.notLaunch.value}`, {
      code: 'E_NOT_VLLM',
      at: match.notLaunch.at,
      hint: 'expected `vllm serve MODEL …` or `python -m vllm.entrypoints.openai.api_server --model MODEL …`',
    });
  const env = new Map<string, Located<string>>();
  if (!match.envReplaced) for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env.set(k, { value: v });
  for (const [k, v] of match.env) env.set(k, v);
  let launch: LaunchCommand | undefined;
  if (match.tokens) {
    launch = newLaunch(source, match.tokens, opts.cwd);
    if (match.wrapper) launch.extraFlags = match.wrapper.extraFlags;
    launch.env = env;
  } else if (match.script) {
    const script = match.script;
    launch = launchesFromShell(script.text, {
      source,
      baseDir: opts.cwd,
      locate: () => script.at ?? { file: '<argv>', line: 1, column: 1 },
      unsetReason: 'is not set in the command',
      env,
      positional: positionalFrom(match.scriptArgs),
    })[0];
  }
  if (!launch) return assembleDeployment(newLaunch(source, tokens, opts.cwd), assembleOptions(opts));
  launch.image ??= match.image;
  if (!launch.mounts.length) launch.mounts = match.mounts;
  launch.notes = [...match.notes, ...launch.notes];
  return assembleDeployment(launch, assembleOptions(opts));
}

function givenValues(opts: LoadOptions): GivenValues | undefined {
  if (!opts.set && !opts.setEnv) return undefined;
  const located = (option: string) => (entries: Record<string, string> | undefined) =>
    new Map(Object.entries(entries ?? {}).map(([k, v]) => [k, { value: v, at: { file: `<${option}>`, line: 1, column: 1 } }]));
  return { vars: located('--set')(opts.set), env: located('--env')(opts.setEnv) };
}

function assembleOptions(opts: LoadOptions): AssembleOptions {
  return {
    modelConfig: opts.modelConfig,
    gpu: opts.gpu,
    vllmVersion: opts.vllmVersion,
    flashinferVersion: opts.flashinferVersion,
    sglangVersion: opts.sglangVersion,
    llamaCppVersion: opts.llamaCppVersion,
    cwd: opts.cwd,
    allowUnknownFlags: opts.allowUnknownFlags,
  };
}

function readSource(path: string, cwd: string): SourceFile {
  const absPath = resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(absPath, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR')
      throw new UserError(`${path} is a directory`, { code: 'E_INPUT', hint: 'give the launch files in it, e.g. dir/*.yaml' });
    throw new UserError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)}`, {
      code: 'E_INPUT',
      hint: 'check the path (relative paths are taken from the current directory)',
    });
  }
  return { path, absPath, baseDir: dirname(absPath), text };
}

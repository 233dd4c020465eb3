/**
 * One container (Kubernetes, KServe, Compose) → its vLLM launches. Shared rules:
 * - `command` replaces the image entrypoint, `args` its CMD; argv is command ++ args.
 * - Kubernetes expands `$(VAR)` in command, args and env values from the env entries defined
 *   before (`$$` escapes); `${VAR}` and `$VAR` are left alone (kubernetes.io, "Define Dependent
 *   Environment Variables"). Values from secrets or field refs are unknown here.
 * - `sh -c SCRIPT` → the script is parsed as shell, with the container env exported.
 * - no command and only arguments on a vLLM image → the entrypoint (`vllm serve`) runs them;
 *   on a llama.cpp or Ollama image, that image's server (llama-start.ts), also with no arguments.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { LaunchSource } from '../deployment.js';
import { toToken, type ArgField } from './arg-field.js';
import { entrypointForm, findLaunch, looksLikeVllmImage, type LaunchMatch } from './launch-start.js';
import { looksLikeSglangImage, sglangEntrypointForm } from './sglang-start.js';
import { isLlamaFamilyImage, llamaFamilyImageForm, ollamaModelsIn, ollamaScriptForm } from './llama-start.js';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import { launchesFromShell, positionalFrom } from './shell.js';

export interface EnvEntry {
  name: string;
  value?: Located<string>;
  /** Where the value comes from when it is not written out (e.g. "secret hf-secret/hf_api_token"). */
  from?: string;
  /** The value as a word with per-character positions (for values that hold more argv words). */
  field?: ArgField;
  at?: SourceLocation;
}

export interface ContainerSpec {
  source: LaunchSource;
  baseDir: string;
  image?: ArgField;
  /** undefined when the manifest does not set it (the image's entrypoint runs). */
  command?: ArgField[];
  args?: ArgField[];
  env: EnvEntry[];
  /** Kubernetes-style `$(VAR)` expansion (not in Compose). */
  kubernetesVars: boolean;
  gpuHints: Located<string>[];
  notes: Located<string>[];
  /** Words appended to the vLLM argv (KServe's VLLM_ADDITIONAL_ARGS). */
  appendArgs?: ArgField[];
  /** Completes "X … ; kept as $X" for shell scripts inside the container. */
  unsetReason: string;
  /** Commands run beside the server (a postStart hook): an Ollama server's `ollama pull MODEL`. */
  hooks?: ArgField[][];
}

/** Env var names worth a note when their value cannot be known statically. */
const RELEVANT_ENV = /^(VLLM_|SGLANG_|FLASHINFER|LLAMA_ARG_|OLLAMA_|CUDA_VISIBLE_DEVICES$|TORCH_CUDA_ARCH_LIST$)/;

export function launchesFromContainer(c: ContainerSpec): LaunchCommand[] {
  const notes = [...c.notes];
  const env = containerEnv(c, notes);
  const values = new Map([...env].map(([k, v]) => [k, v.value]));
  const expand = (f: ArgField) => (c.kubernetesVars ? expandKubernetesVars(f, values) : f);
  const command = c.command?.map(expand);
  const args = c.args?.map(expand);
  const words = [...(command ?? []), ...(args ?? [])];

  let match = findLaunch(words);
  if (!match && !command && isLlamaFamilyImage(c.image?.text)) {
    const m: LaunchMatch = { env: new Map(), envReplaced: false, mounts: [], notes: [] };
    if (llamaFamilyImageForm(c.image, args ?? [], m)) match = m;
  }
  if (!match && !command && args?.length && looksLikeSglangImage(c.image?.text ?? '')) {
    const m: LaunchMatch = { env: new Map(), envReplaced: false, mounts: [], notes: [] };
    if (sglangEntrypointForm(c.image, args, m)) match = m;
  }
  if (!match && !command && args?.length && !looksLikeSglangImage(c.image?.text ?? '') && !isLlamaFamilyImage(c.image?.text) && (looksLikeVllmImage(c.image?.text ?? '') || args.some((a) => a.text.startsWith('--model')))) {
    const m: LaunchMatch = { env: new Map(), envReplaced: false, mounts: [], notes: [] };
    if (entrypointForm(c.image, args, m)) match = m;
  }
  if (!match || (match.script && !match.tokens && !match.notLaunch)) {
    // no server found (or only a script): a start script named for Ollama, with Ollama's variables set
    const script = ollamaScriptForm(words, env);
    if (script && (!match || launchesFromShell(match.script?.text ?? '', { source: c.source, baseDir: c.baseDir, locate: () => c.image?.at ?? { file: c.source.file, line: 1, column: 1 }, unsetReason: c.unsetReason }).length === 0))
      match = script;
  }
  if (!match) return [];

  let launches: LaunchCommand[];
  const launchEnv = match.envReplaced ? new Map(match.env) : new Map([...env, ...match.env]);
  if (match.notLaunch) {
    const rec = newLaunch(c.source, [], c.baseDir);
    rec.notLaunch = match.notLaunch;
    return [rec];
  }
  if (match.tokens) {
    const launch = newLaunch(c.source, match.tokens, c.baseDir);
    if (match.wrapper) launch.extraFlags = match.wrapper.extraFlags;
    launch.env = launchEnv;
    launches = [launch];
  } else if (match.script) {
    const script = match.script;
    launches = launchesFromShell(script.text, {
      source: c.source,
      baseDir: c.baseDir,
      locate: (o) => script.charAt?.(o) ?? script.at ?? { file: c.source.file, line: 1, column: 1 },
      env: launchEnv,
      unsetReason: c.unsetReason,
      positional: positionalFrom(match.scriptArgs),
    });
  } else launches = [];

  for (const l of launches) {
    if (c.appendArgs?.length) l.tokens.push(...c.appendArgs.map(toToken));
    if (c.kubernetesVars)
      for (const t of l.tokens)
        for (const m of t.text.matchAll(/\$\([A-Za-z_][\w.-]*\)/g))
          notes.push({ value: `${m[0]} is not defined in the container's env here; kept as written (the platform may inject it)`, at: t.at });
    l.gpuHints.push(...c.gpuHints);
    if (c.hooks?.length && l.tokens[1]?.text === 'serve' && /(^|\/)ollama$/.test(l.tokens[0]?.text ?? '')) {
      const models = c.hooks.flatMap(ollamaModelsIn);
      if (models.length) l.ollamaModels = [...(l.ollamaModels ?? []), ...models];
    }
    if (c.image) l.image ??= { value: c.image.text, at: c.image.at };
    l.notes = [...notes, ...match.notes, ...l.notes];
  }
  return launches;
}

function containerEnv(c: ContainerSpec, notes: Located<string>[]): Map<string, Located<string>> {
  const env = new Map<string, Located<string>>();
  for (const e of c.env) {
    if (e.value) {
      const value = c.kubernetesVars ? expandKubernetesText(e.value.value, new Map([...env].map(([k, v]) => [k, v.value]))) : e.value.value;
      env.set(e.name, { ...e.value, value });
    } else {
      env.delete(e.name);
      if (RELEVANT_ENV.test(e.name))
        notes.push({ value: `env ${e.name} comes from ${e.from ?? 'outside the file'}; its value is not known here`, at: e.at });
    }
  }
  return env;
}

const K8S_VAR = /\$\$|\$\(([A-Za-z_][\w.-]*)\)/g;

function expandKubernetesText(text: string, values: Map<string, string>): string {
  return text.replace(K8S_VAR, (m, name: string | undefined) => (m === '$$' ? '$' : values.get(name ?? '') ?? m));
}

/** `$(VAR)` → value, keeping a per-character map back to the `$(` it replaced. */
function expandKubernetesVars(f: ArgField, values: Map<string, string>): ArgField {
  if (!f.text.includes('$')) return f;
  let text = '';
  const from: number[] = [];
  let last = 0;
  for (const m of f.text.matchAll(K8S_VAR)) {
    const i = m.index ?? 0;
    for (let k = last; k < i; k++) from.push(k);
    text += f.text.slice(last, i);
    const name = m[1];
    const value = m[0] === '$$' ? '$' : name !== undefined ? values.get(name) : undefined;
    if (value === undefined) {
      for (let k = 0; k < m[0].length; k++) from.push(i + k);
      text += m[0];
    } else {
      for (let k = 0; k < value.length; k++) from.push(i);
      text += value;
    }
    last = i + m[0].length;
  }
  for (let k = last; k < f.text.length; k++) from.push(k);
  text += f.text.slice(last);
  const charAt = f.charAt;
  return { text, at: f.at, charAt: charAt ? (k) => charAt(from[Math.min(k, from.length - 1)] ?? 0) : undefined };
}

/**
 * Finds where vLLM starts inside a command's words, looking through what wraps it:
 * `exec`, `nohup`, `uv run`, `env A=B`, `sudo`, `docker run … IMAGE`, `bash -c "…"` and the like.
 * The launch is `vllm serve …` (any path ending in /vllm) or
 * `python… -m vllm.entrypoints.openai.api_server …` (also the legacy vllm.entrypoints.api_server),
 * or an SGLang server (`sglang serve`, `python… -m sglang.launch_server`: sglang-start.ts),
 * or llama.cpp's `llama-server` / Ollama's `ollama serve` (llama-start.ts).
 * Words are scanned left to right, so unknown wrappers (`srun --gres=gpu:8 vllm serve …`) work too.
 */
import type { Located } from '../../core/located.js';
import { synthesized, toToken, type ArgField } from './arg-field.js';
import { parseDockerRun } from './docker-run.js';
import type { ArgToken } from './launch-command.js';
import type { FlagSpec } from '../vllm-flags.js';
import { isSglangModule, looksLikeSglangImage, matchSglangServe, sglangEntrypointForm } from './sglang-start.js';
import { isLlamaFamilyImage, llamaFamilyImageForm, llamaFamilyNotLaunch, matchLlamaFamily } from './llama-start.js';

export interface LaunchMatch {
  /** The vLLM argv, starting at the vllm/python word; absent when `script` is set instead. */
  tokens?: ArgToken[];
  /** A shell script the words run (`sh -c SCRIPT`): the caller parses it for launches. */
  script?: ArgField;
  /** The words after SCRIPT: `$0`, then the positional parameters `$1 …` ("$@"). */
  scriptArgs?: ArgField[];
  /** Environment set by wrappers (`env A=B`, `docker run -e`). */
  env: Map<string, Located<string>>;
  /** The wrappers start from an empty environment (a container, `env -i`): the outer env does not reach vLLM. */
  envReplaced: boolean;
  image?: Located<string>;
  mounts: { container: string; host: string }[];
  notes: Located<string>[];
  /** The words run something faultline recognises that is not a server launch (a benchmark client, a router): what it is. */
  notLaunch?: Located<string>;
  /** The launch is a wrapper's vLLM worker (Dynamo): its own extra flags and the role it names. */
  wrapper?: { name: string; extraFlags: readonly FlagSpec[] };
}

/** Commands that mention vLLM without starting it. */
const NOT_LAUNCHERS = new Set(
  'echo printf pip pip3 grep egrep fgrep pgrep pkill kill killall which type ps cat tee git curl wget tail head sed awk logger read test [ [[ huggingface-cli hf apt apt-get conda-install'.split(' '),
);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'ksh']);
const CONTAINER_RUNNERS = new Set(['docker', 'podman', 'nerdctl', 'nvidia-docker']);
const PYTHON = /^python(\d+(\.\d+)*)?$/;
const VLLM_MODULES = new Set(['vllm.entrypoints.openai.api_server', 'vllm.entrypoints.api_server']);

export interface FindOptions {
  /** Looks up a variable of the surrounding shell (for `docker run -e NAME`). */
  hostEnv?: (name: string) => Located<string> | undefined;
}

export function findLaunch(words: ArgField[], opts: FindOptions = {}): LaunchMatch | undefined {
  if (words.length === 0 || NOT_LAUNCHERS.has(basename(words[0].text))) return undefined;
  const match: LaunchMatch = { env: new Map(), envReplaced: false, mounts: [], notes: [] };
  return scan(words, match, opts) ? match : undefined;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function scan(words: ArgField[], m: LaunchMatch, opts: FindOptions): boolean {
  for (let i = 0; i < words.length; i++) {
    const name = basename(words[i].text);
    if (name === 'vllm' && words[i + 1]?.text === 'serve') {
      m.tokens = words.slice(i).map(toToken);
      return true;
    }
    const sglang = matchSglangServe(words, i);
    if (sglang) {
      m.tokens = sglang;
      return true;
    }
    const llama = matchLlamaFamily(words, i);
    if (llama) {
      m.tokens = llama;
      return true;
    }
    if (llamaFamilyNotLaunch(words, i, m)) return true;
    if (name === 'vllm' && words[i + 1] && VLLM_CLIENT_COMMANDS.has(words[i + 1].text)) {
      const sub = words.slice(i + 1, i + 3).map((w) => w.text).filter((t) => !t.startsWith('-')).join(' ');
      m.notLaunch = { value: `\`vllm ${sub}\` (a vLLM client command, not a server launch)`, ...(words[i].at ? { at: words[i].at } : {}) };
      return true;
    }
    if (PYTHON.test(name)) {
      const tokens = matchPythonModule(words, i);
      if (tokens) {
        m.tokens = tokens;
        return true;
      }
      const other = otherPythonProgram(words, i, m);
      if (other) return true;
    }
    if (SHELLS.has(name)) {
      const k = shellScriptArgument(words, i);
      if (k !== undefined) {
        m.script = words[k];
        m.scriptArgs = words.slice(k + 1);
        return true;
      }
    }
    if (name === 'env' && i + 1 < words.length) {
      i = applyEnvWrapper(words, i + 1, m) - 1;
      continue;
    }
    if (CONTAINER_RUNNERS.has(name)) {
      const runAt = words[i + 1]?.text === 'run' ? i + 2 : words[i + 1]?.text === 'container' && words[i + 2]?.text === 'run' ? i + 3 : -1;
      if (runAt >= 0) return scanContainer(words.slice(runAt), m, opts);
    }
  }
  return false;
}

function scanContainer(words: ArgField[], m: LaunchMatch, opts: FindOptions): boolean {
  const run = parseDockerRun(words, opts.hostEnv ?? (() => undefined));
  m.env = run.env;
  m.envReplaced = true;
  m.mounts = run.mounts;
  m.notes.push(...run.notes);
  if (!run.image) return false;
  m.image = { value: run.image.text, at: run.image.at };
  const inner = run.entrypoint ? [run.entrypoint, ...run.command] : run.command;
  if (scan(inner, m, {})) return true;
  // No command, or only arguments: the image's entrypoint runs them.
  if (!run.entrypoint && isLlamaFamilyImage(run.image.text) && (inner.length === 0 || !isProgram(inner[0].text)))
    return llamaFamilyImageForm(run.image, inner, m);
  if (!run.entrypoint && looksLikeSglangImage(run.image.text) && inner.length > 0 && !isProgram(inner[0].text))
    return sglangEntrypointForm(run.image, inner, m);
  if (!run.entrypoint && looksLikeVllmImage(run.image.text) && inner.length > 0 && !isProgram(inner[0].text)) {
    return entrypointForm(run.image, inner, m);
  }
  return false;
}

/**
 * The vllm/vllm-openai images run `vllm serve` as their entrypoint (older tags ran the
 * api_server module, which takes the same engine flags), so a container given only arguments
 * is `vllm serve ARGS`.
 */
export function entrypointForm(image: ArgField | undefined, args: ArgField[], m: LaunchMatch): boolean {
  if (args.length === 0) return false;
  const at = image?.at ?? args[0].at;
  m.tokens = [synthesized('vllm', at), synthesized('serve', at), ...args].map(toToken);
  m.notes.push({
    value: `no command given: assumed the image entrypoint runs \`vllm serve\` (as vllm/vllm-openai does) with these arguments`,
    at,
  });
  if (args[0].text === 'serve')
    m.notes.push({ value: 'the arguments start with `serve`, which the entrypoint already supplies', at: args[0].at });
  return true;
}

/** A word that names a program rather than an argument of vLLM (`bash`, `python3`, `ls` …). */
function isProgram(word: string): boolean {
  const name = basename(word);
  return SHELLS.has(name) || PYTHON.test(name) || NOT_LAUNCHERS.has(name) || ['vllm', 'sglang', 'llama-server', 'ollama'].includes(name);
}

export function looksLikeVllmImage(image: string): boolean {
  return /vllm/i.test(image);
}

/** vLLM subcommands that talk to a server or measure one instead of starting it. */
const VLLM_CLIENT_COMMANDS = new Set(['bench', 'chat', 'complete', 'collect-env', 'run-batch']);

/** Python programs recognised by module or script name that are not vLLM servers, and Dynamo's vLLM worker. */
function otherPythonProgram(words: ArgField[], i: number, m: LaunchMatch): boolean {
  const k = words.findIndex((w, j) => j > i && !w.text.startsWith('-')) ;
  const mIndex = words.findIndex((w, j) => j > i && w.text === '-m');
  const module = mIndex > i ? words[mIndex + 1]?.text : undefined;
  const script = k > i && (mIndex < 0 || k < mIndex) ? words[k].text : undefined;
  const at = words[i].at;
  if (module === 'dynamo.vllm') {
    const args = words.slice(mIndex + 2);
    const synth = (text: string) => (at ? { text, at } : { text });
    m.tokens = [synth('python3'), synth('-m'), synth('vllm.entrypoints.openai.api_server'), ...args.map(toToken)];
    m.wrapper = { name: 'dynamo.vllm', extraFlags: DYNAMO_VLLM_FLAGS };
    m.notes.push({ value: "NVIDIA Dynamo's vLLM worker (python -m dynamo.vllm): read as vLLM's engine arguments plus the worker's own flags", ...(at ? { at } : {}) });
    return true;
  }
  if (module === 'llama_cpp.server') {
    m.notLaunch = { value: "python -m llama_cpp.server (llama-cpp-python's server, whose flags are its own; not read)", ...(at ? { at } : {}) };
    return true;
  }
  if (module === 'sglang.launch_router' || module === 'sglang_router.launch_router') {
    m.notLaunch = { value: `python -m ${module} (SGLang's request router, not a server launch)`, ...(at ? { at } : {}) };
    return true;
  }
  const bench = module === 'vllm.entrypoints.openai.run_batch' ? module : script && /benchmark_(serving|throughput|latency)|bench_serving/.test(script) ? script : undefined;
  if (bench) {
    m.notLaunch = { value: `${bench} (a benchmark / batch client, not a server launch)`, ...(at ? { at } : {}) };
    return true;
  }
  return false;
}

/**
 * Flags of Dynamo's vLLM worker beside vLLM's own (ai-dynamo/dynamo: components/src/dynamo/vllm/args.py);
 * unknown ones are still reported as FL000-possibly, never refused.
 */
const DYNAMO_VLLM_FLAGS: readonly FlagSpec[] = [
  { dest: 'is_prefill_worker', kind: 'bool', noNegation: true },
  { dest: 'is_decode_worker', kind: 'bool', noNegation: true },
  { dest: 'endpoint', kind: 'string' },
  { dest: 'connector', kind: 'list' },
  { dest: 'migration_limit', kind: 'int' },
  { dest: 'dyn_tool_call_parser', kind: 'string' },
  { dest: 'dyn_reasoning_parser', kind: 'string' },
  { dest: 'custom_jinja_template', kind: 'string' },
];

function matchPythonModule(words: ArgField[], i: number): ArgToken[] | undefined {
  let k = i + 1;
  while (k < words.length) {
    const t = words[k].text;
    if (t === '-m') {
      const mod = words[k + 1];
      if (mod && (VLLM_MODULES.has(mod.text) || isSglangModule(mod.text))) return [toToken(words[i]), toToken(words[k]), toToken(mod), ...words.slice(k + 2).map(toToken)];
      return undefined;
    }
    if (t.startsWith('-m') && (VLLM_MODULES.has(t.slice(2)) || isSglangModule(t.slice(2)))) {
      const at = words[k].at;
      return [toToken(words[i]), synthesized('-m', at), synthesized(t.slice(2), at), ...words.slice(k + 1).map(toToken)];
    }
    if (t === '-X' || t === '-W') k += 2;
    else if (/^-[uBOsSEIbdqvR]+$/.test(t)) k++;
    else return undefined;
  }
  return undefined;
}

/** `sh -c SCRIPT`, `bash -lc SCRIPT`, `bash -o pipefail -c SCRIPT` → the index of SCRIPT. */
function shellScriptArgument(words: ArgField[], i: number): number | undefined {
  let sawC = false;
  for (let k = i + 1; k < words.length; k++) {
    const t = words[k].text;
    if (t === '-o' || t === '+o') k++;
    else if (/^[-+][a-zA-Z]+$/.test(t)) sawC ||= t.startsWith('-') && t.includes('c');
    else if (t.startsWith('--')) continue;
    else return sawC ? k : undefined;
  }
  return undefined;
}

/** `env [-i] [-u NAME] [NAME=VALUE]… CMD`: returns the index of CMD. */
function applyEnvWrapper(words: ArgField[], k: number, m: LaunchMatch): number {
  for (; k < words.length; k++) {
    const t = words[k].text;
    if (t === '-i' || t === '--ignore-environment' || t === '-') {
      m.envReplaced = true;
      m.env.clear();
    } else if (t === '-u' || t === '--unset') {
      m.env.delete(words[++k]?.text ?? '');
    } else if (t.startsWith('--unset=')) {
      m.env.delete(t.slice('--unset='.length));
    } else if (/^[A-Za-z_]\w*=/.test(t)) {
      const eq = t.indexOf('=');
      m.env.set(t.slice(0, eq), { value: t.slice(eq + 1), at: words[k].at });
    } else if (!t.startsWith('-')) {
      return k;
    }
  }
  return k;
}

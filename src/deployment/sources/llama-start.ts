/**
 * The llama.cpp and Ollama side of the launch finder (a hook in launch-start.ts, container.ts and
 * docker-run scanning, as sglang-start.ts is for SGLang):
 *   `llama-server …` (and the older `server` binary where unambiguous: engines/llama-cpp/command.ts),
 *   `ollama serve`; other llama.cpp programs (llama-cli, llama-bench …) and Ollama's client commands
 *   (`ollama pull`, `ollama run` …) are named as not a server launch.
 * Images whose entrypoint starts a server when the file gives no command:
 *   ghcr.io/ggml-org/llama.cpp:server* (also ggerganov/) → `llama-server ARGS` (no arguments at all:
 *   llama-server configured by LLAMA_ARG_* alone); :full* → tools.sh, whose first argument `--server`
 *   / `-s` runs llama-server with the rest; ollama/ollama (ENTRYPOINT /bin/ollama, CMD serve) →
 *   `ollama serve`.
 */
import {
  imageEntrypointNote,
  isLlamaCppTool,
  llamaCppImage,
  llamaServerAt,
} from '../engines/llama-cpp/command.js';
import { ollamaImage, ollamaVariable } from '../engines/ollama/env-table.js';
import { synthesized, toToken, type ArgField } from './arg-field.js';
import type { Located } from '../../core/located.js';
import type { ArgToken } from './launch-command.js';
import type { LaunchMatch } from './launch-start.js';

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Ollama subcommands that talk to a server (or manage models) instead of being one. */
const OLLAMA_CLIENT = new Set([
  'run',
  'pull',
  'push',
  'create',
  'list',
  'ls',
  'ps',
  'show',
  'cp',
  'rm',
  'stop',
  'signin',
  'signout',
  'launch',
]);

/** `llama-server …` or `ollama serve …` starting at word i. */
export function matchLlamaFamily(words: ArgField[], i: number): ArgToken[] | undefined {
  if (llamaServerAt(words, i)) return words.slice(i).map(toToken);
  if (basename(words[i].text) === 'ollama' && words[i + 1]?.text === 'serve')
    return words.slice(i).map(toToken);
  return undefined;
}

/** A llama.cpp program or Ollama command that is not a server: what it is, or undefined. */
export function llamaFamilyNotLaunch(words: ArgField[], i: number, m: LaunchMatch): boolean {
  const w = words[i];
  const name = basename(w.text);
  const at = w.at ? { at: w.at } : {};
  if (isLlamaCppTool(w.text)) {
    m.notLaunch = {
      value: `\`${name}\` (a llama.cpp program that is not a server; llama-server serves)`,
      ...at,
    };
    return true;
  }
  if (name === 'ollama' && words[i + 1] && OLLAMA_CLIENT.has(words[i + 1].text)) {
    m.notLaunch = {
      value: `\`ollama ${words[i + 1].text}\` (an Ollama client command, not the server: \`ollama serve\` is)`,
      ...at,
    };
    return true;
  }
  return false;
}

/** The image runs llama-server or Ollama's server when given these arguments and no command. */
export function llamaFamilyImageForm(image: ArgField | undefined, args: ArgField[], m: LaunchMatch): boolean {
  const name = image?.text ?? '';
  const at = image?.at ?? args[0]?.at;
  const llama = llamaCppImage(name);
  if (llama?.variant === 'server') {
    if (args.length && !args[0].text.startsWith('-')) return false;
    m.tokens = [synthesized('llama-server', at), ...args].map(toToken);
    m.notes.push({
      value: args.length
        ? imageEntrypointNote(name, false)
        : `no command or arguments: the ${name} image's entrypoint llama-server runs, configured by its LLAMA_ARG_* environment`,
      ...(at ? { at } : {}),
    });
    return true;
  }
  if (llama?.variant === 'full') {
    const first = args[0];
    if (!first || (first.text !== '--server' && first.text !== '-s')) return false;
    m.tokens = [synthesized('llama-server', first.at), ...args.slice(1)].map(toToken);
    m.notes.push({ value: imageEntrypointNote(name, true), ...(first.at ? { at: first.at } : {}) });
    return true;
  }
  if (ollamaImage(name)) {
    if (args.length > 1 || (args.length === 1 && args[0].text !== 'serve')) return false;
    m.tokens = [synthesized('ollama', at), args[0] ?? synthesized('serve', at)].map(toToken);
    m.notes.push({
      value: `${args.length ? 'no command given' : 'no command or arguments'}: the ${name} image runs \`ollama serve\` (ENTRYPOINT /bin/ollama, CMD serve)`,
      ...(at ? { at } : {}),
    });
    return true;
  }
  return false;
}

/** An image whose own entrypoint a llama.cpp / Ollama form applies to (so the vLLM `--model` guess does not). */
export function isLlamaFamilyImage(image: string | undefined): boolean {
  return Boolean(llamaCppImage(image) ?? ollamaImage(image));
}

/** Models a command has Ollama pull or run: `ollama pull X`, `ollama run X`, also inside `sh -c "…"`. */
export function ollamaModelsIn(words: ArgField[]): Located<string>[] {
  const out: Located<string>[] = [];
  for (const w of words) {
    const text = w.text;
    for (const m of text.matchAll(
      /(?:^|[\s;&|(])(?:\S*\/)?ollama\s+(?:pull|run)\s+(?:--insecure\s+)?([^\s;&|"'`)]+)/g,
    )) {
      const offset = (m.index ?? 0) + m[0].length - m[1].length;
      const at = w.charAt?.(offset) ?? w.at;
      out.push({ value: m[1], ...(at ? { at } : {}) });
    }
  }
  // the exec form: ["ollama", "pull", "codestral"]
  for (let i = 0; i + 2 < words.length; i++)
    if (
      basename(words[i].text) === 'ollama' &&
      (words[i + 1].text === 'pull' || words[i + 1].text === 'run') &&
      !words[i + 2].text.startsWith('-')
    )
      out.push({ value: words[i + 2].text, ...(words[i + 2].at ? { at: words[i + 2].at } : {}) });
  return out;
}

/**
 * A container that runs a start script named for Ollama (`bash start-ollama.sh`, the script of
 * images such as ipex-llm's) and sets Ollama's own server variables: the script is not in the file,
 * but the server it starts is `ollama serve` configured by that environment. Both must hold.
 */
export function ollamaScriptForm(
  words: ArgField[],
  env: Map<string, Located<string>>,
): LaunchMatch | undefined {
  if (![...env.keys()].some((k) => ollamaVariable(k) && k.startsWith('OLLAMA_'))) return undefined;
  for (const w of words) {
    const m = /(?:^|[\s;&|/])([\w.-]*ollama[\w.-]*\.sh)\b/i.exec(w.text);
    if (!m) continue;
    const offset = (m.index ?? 0) + m[0].length - m[1].length;
    const at = w.charAt?.(offset) ?? w.at;
    return {
      tokens: [synthesized('ollama', at), synthesized('serve', at)].map(toToken),
      env: new Map(),
      envReplaced: false,
      mounts: [],
      notes: [
        {
          value: `the container runs ${m[1]}, a script that is not in this file; with OLLAMA_* variables set for it, it is read as the \`ollama serve\` it starts`,
          ...(at ? { at } : {}),
        },
      ],
    };
  }
  return undefined;
}

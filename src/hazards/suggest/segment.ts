/**
 * A launch's argv split into the words that belong together — the program (`vllm serve`,
 * `python -m vllm.entrypoints.openai.api_server`), then one group per option with its value
 * words, and positionals — so a remedy can replace or drop exactly the words of one dest.
 * Value consumption follows vLLM's argparse (deployment/vllm-argparse.ts): an on/off switch takes
 * no value, a list takes words up to the next option, every other flag one word unless written
 * `--x=v`; a dotted sub-key (`--attention-config.backend X`) belongs to its JSON flag's dest.
 */
import type { ArgToken } from '../../deployment/argv-token.js';
import { looksLikeOption } from '../../deployment/vllm-argparse.js';
import { destOf, type FlagSpec } from '../../deployment/vllm-flags.js';
import { sglangProgramLength } from '../../deployment/engines/sglang/command.js';
import { llamaServerProgram } from '../../deployment/engines/llama-cpp/command.js';
import { flagIndexForArgv } from './engine-flags.js';
import { segmentLlamaArgv } from './llama-argv.js';

export interface ArgGroup {
  /** Index of the group's first word in the argv, and one past its last. */
  start: number;
  end: number;
  /** The option's dest (guessed from the name for an option no table knows); undefined for positionals. */
  dest?: string;
  spec?: FlagSpec;
  /** For a dotted sub-key: the path after the dest (`backend` in `--attention-config.backend`). */
  path?: string;
  /** The option as written, without `=value` (`--kv-cache-dtype`, `-tp`, `--no-enforce-eager`). */
  option?: string;
}

export interface SegmentedArgv {
  /** Number of program words before the first argument (`vllm serve` → 2). */
  programLength: number;
  groups: ArgGroup[];
}

/** How many words start the server: `vllm serve`, or `python … -m MODULE [serve]`. */
export function programLength(tokens: readonly ArgToken[]): number {
  const sglang = sglangProgramLength(tokens);
  if (sglang !== undefined) return sglang;
  const program = tokens[0]?.text.split('/').pop() ?? '';
  if (program === 'vllm') return tokens[1]?.text === 'serve' ? 2 : 1;
  if (/^python(\d+(\.\d+)*)?$/.test(program)) {
    const m = tokens.findIndex((t) => t.text === '-m');
    if (m < 0) return 1;
    return tokens[m + 1]?.text === 'vllm.entrypoints.cli.main' && tokens[m + 2]?.text === 'serve'
      ? m + 3
      : m + 2;
  }
  return tokens[0]?.text.startsWith('-') ? 0 : 1;
}

/** `--kv_cache_dtype=x` → `--kv-cache-dtype`: vLLM's spelling pass on the name part of a `--` option. */
function optionName(text: string): { name: string; path?: string; explicit: boolean } {
  const eq = text.indexOf('=');
  const key = eq < 0 ? text : text.slice(0, eq);
  const dot = key.indexOf('.');
  const base = dot < 0 ? key : key.slice(0, dot);
  const name = base.startsWith('--') ? base.replace(/_/g, '-') : base;
  return { name, ...(dot < 0 ? {} : { path: key.slice(dot + 1).replace(/\+$/, '') }), explicit: eq >= 0 };
}

export function segmentArgv(tokens: readonly ArgToken[]): SegmentedArgv {
  if (llamaServerProgram(tokens)) return segmentLlamaArgv(tokens);
  const index = flagIndexForArgv(tokens);
  const start = programLength(tokens);
  const groups: ArgGroup[] = [];
  let k = start;
  while (k < tokens.length) {
    const text = tokens[k].text;
    if (text === '--' || !looksLikeOption(text, index)) {
      groups.push({ start: k, end: ++k });
      continue;
    }
    const { name, path, explicit } = optionName(text);
    const match = index.lookup(name);
    const group: ArgGroup = { start: k, end: k + 1, option: name };
    k++;
    if (match) {
      group.dest = match.spec.dest;
      group.spec = match.spec;
      if (path !== undefined) group.path = path;
      const takesValue = !explicit && (path !== undefined || match.spec.kind !== 'bool');
      if (takesValue && match.spec.kind === 'list' && path === undefined)
        while (k < tokens.length && tokens[k].text !== '--' && !looksLikeOption(tokens[k].text, index)) k++;
      else if (takesValue && k < tokens.length && !looksLikeOption(tokens[k].text, index)) k++;
      group.end = k;
    } else if (name.startsWith('--') && path === undefined) {
      // An option no table knows (lint's FL000): its dest and value read as the argv parser guesses them,
      // so a remedy can drop exactly its words.
      group.dest = destOf(name);
      if (
        !explicit &&
        k < tokens.length &&
        tokens[k].text !== '--' &&
        !looksLikeOption(tokens[k].text, index)
      )
        k++;
      group.end = k;
    }
    groups.push(group);
  }
  return { programLength: start, groups };
}

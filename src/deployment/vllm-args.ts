/**
 * vLLM argv emulation: what `vllm serve …` / `python -m vllm.entrypoints.openai.api_server …`
 * would receive as arguments, parsed the way vLLM's FlexibleArgumentParser + argparse parse them
 * (research/configs-and-cli.md §2). Used by lint (through the launch sources), guard, and the
 * reference engine, so a flag means the same thing everywhere.
 *
 * Order of work, as in vLLM: `--config FILE` is expanded first (YAML flags go before the
 * command-line flags, so the command line wins), then option spelling is normalized, then dotted
 * sub-keys are merged and appended, then argparse semantics run left to right (last one wins).
 *
 * Every value is located at the token of its option (`--kv-cache-dtype` in `--kv-cache-dtype
 * fp8`); errors about a value point at the value's token. For JSON flags, `keyAt` also says where
 * each sub-key was written (dotted tokens, YAML keys).
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import type { ArgToken, PreparedToken } from './argv-token.js';
import { checkAttentionBackend, foldLegacySpeculativeFlags, resolveModel } from './vllm-arg-checks.js';
import { runArgparse } from './vllm-argparse.js';
import { checkConfigValues } from './vllm-config-check.js';
import { readConfigFileTokens } from './vllm-config-file.js';
import { mergeDottedArgs, normalizeSpelling } from './vllm-dotted-args.js';
import { chooseFlagTable } from './vllm-flag-table.js';
import type { FlagIndex } from './vllm-flags.js';
import type { ArgValue, FlagProblem, ParseVllmOptions, VllmParse } from './vllm-parse-types.js';

export type { ArgValue, FlagProblem, ParseVllmOptions, RuntimeValue, VllmParse } from './vllm-parse-types.js';

const SERVER_MODULES = new Set(['vllm.entrypoints.openai.api_server', 'vllm.entrypoints.api_server']);

/**
 * Parse a whole vLLM server command. `tokens[0]` is the program: `vllm` (any path) followed by
 * `serve`, or `python[3[.x]] [-u …] -m vllm.entrypoints.openai.api_server` (or `vllm.entrypoints.cli.main serve`).
 */
export function parseVllmCommand(tokens: readonly ArgToken[], opts: ParseVllmOptions): VllmParse {
  const first = tokens[0];
  const notVllm = (what: string, at?: SourceLocation): UserError =>
    new UserError(`not a vLLM server launch: ${what}`, {
      code: 'E_NOT_VLLM',
      at,
      hint: 'expected `vllm serve MODEL …` or `python -m vllm.entrypoints.openai.api_server --model MODEL …`',
    });
  if (!first) throw notVllm('the command is empty');
  const program = first.text.split('/').pop() ?? '';
  if (program === 'vllm') {
    const sub = tokens[1];
    if (sub?.text !== 'serve')
      throw notVllm(
        sub ? `\`vllm ${sub.text}\` does not start a server` : '`vllm` without a subcommand',
        sub?.at ?? first.at,
      );
    return parseCore(tokens.slice(2), 'serve', opts, first.at, true);
  }
  if (/^python(\d+(\.\d+)*)?$/.test(program)) {
    let k = 1;
    // Interpreter options before -m (e.g. -u, -O, -B, -X dev): skip them.
    while (k < tokens.length && tokens[k].text !== '-m' && tokens[k].text.startsWith('-'))
      k += tokens[k].text === '-X' || tokens[k].text === '-W' ? 2 : 1;
    const module = tokens[k + 1];
    if (tokens[k]?.text !== '-m' || !module)
      throw notVllm(`\`${first.text}\` is not run with -m <vLLM module>`, first.at);
    if (module.text === 'vllm.entrypoints.cli.main') {
      if (tokens[k + 2]?.text !== 'serve')
        throw notVllm('vllm.entrypoints.cli.main without `serve`', module.at);
      return parseCore(tokens.slice(k + 3), 'serve', opts, first.at, true);
    }
    if (!SERVER_MODULES.has(module.text))
      throw notVllm(`module ${module.text} is not vLLM's server`, module.at);
    const parsed = parseCore(tokens.slice(k + 2), 'api_server', opts, first.at, false);
    if (module.text === 'vllm.entrypoints.api_server') {
      parsed.notes.push({
        value: "vllm.entrypoints.api_server is vLLM's old demo server, not the OpenAI-compatible one",
        at: module.at,
      });
    }
    return parsed;
  }
  throw notVllm(`\`${first.text}\` is neither \`vllm\` nor a Python interpreter`, first.at);
}

/**
 * Parse flags only (no program): the reference engine's command line, or a container's `args:`
 * when the image entrypoint is `vllm serve` (a positional model is allowed, as after `serve`;
 * pass `positionalModel: false` for images whose entrypoint is the api_server module).
 */
export function parseVllmArgs(
  tokens: readonly ArgToken[],
  opts: ParseVllmOptions & { positionalModel?: boolean },
): VllmParse {
  return parseCore(tokens, 'args', opts, undefined, opts.positionalModel ?? true);
}

/** Where a sub-key of a JSON flag was written, e.g. `argKeyAt(args, 'attention_config.backend')`. */
export function argKeyAt(args: Map<string, ArgValue>, dottedPath: string): SourceLocation | undefined {
  const [dest, ...path] = dottedPath.split('.');
  const arg = args.get(dest);
  if (!arg) return undefined;
  if (path.length === 0) return arg.at;
  return arg.keyAt?.[path.join('.')] ?? arg.at;
}

// ---------------------------------------------------------------------------------------------

type Mode = VllmParse['entryPoint'];

function parseCore(
  tokens: readonly ArgToken[],
  mode: Mode,
  opts: ParseVllmOptions,
  at: SourceLocation | undefined,
  positionalModel: boolean,
): VllmParse {
  const choice = chooseFlagTable(opts.vllmVersion, opts.extraFlags);
  const index = choice.index;
  const notes: Located<string>[] = [];
  const args = new Map<string, ArgValue>();
  const problems: FlagProblem[] = [];
  let prepared: PreparedToken[] = tokens.map((t) => ({ ...t, origin: 'cli' as const }));
  prepared = expandConfigFile(prepared, mode, opts, index, notes, args);
  prepared = normalizeSpelling(prepared);
  const merged = mergeDottedArgs(prepared);
  notes.push(...merged.notes);
  const { positionals, origins } = runArgparse(merged.tokens, index, opts, notes, args, problems, {
    authoritative: choice.authoritative,
    release: choice.table.release,
  });
  const model = resolveModel(
    positionals,
    positionalModel,
    mode,
    args,
    notes,
    origins.get('model') === 'yaml',
  );
  const configCheck = {
    notes,
    problems,
    allowUnknown: opts.allowUnknown ?? false,
    ...(opts.vllmVersion ? { vllmVersion: opts.vllmVersion } : {}),
  };
  checkAttentionBackend(args, configCheck);
  foldLegacySpeculativeFlags(args, notes);
  checkConfigValues(args, configCheck);
  if (problems.length && choice.note) notes.push({ value: choice.note });
  return {
    engine: 'vllm',
    entryPoint: mode,
    ...(at ? { at } : {}),
    ...(model ? { model } : {}),
    args,
    notes,
    flagProblems: problems,
    flagTable: {
      release: choice.table.release,
      commit: choice.table.commit,
      authoritative: choice.authoritative,
      describes: choice.describes,
    },
  };
}

/** `--config FILE`: splice the YAML's flags in before the command-line flags (after a leading positional model). */
function expandConfigFile(
  tokens: PreparedToken[],
  mode: Mode,
  opts: ParseVllmOptions,
  index: FlagIndex,
  notes: Located<string>[],
  args: Map<string, ArgValue>,
): PreparedToken[] {
  const positions = tokens.flatMap((t, k) =>
    t.text === '--config' || t.text.startsWith('--config=') ? [k] : [],
  );
  if (positions.length === 0) return tokens;
  if (positions.length > 1) {
    throw new UserError('more than one --config file given', {
      code: 'E_VLLM_ARGS',
      at: tokens[positions[1]].at,
      hint: 'vLLM accepts a single --config file; merge the files into one',
    });
  }
  const k = positions[0];
  const tok = tokens[k];
  const inline = tok.text.startsWith('--config=');
  const pathTok = inline ? { ...tok, text: tok.text.slice('--config='.length) } : tokens[k + 1];
  if (!pathTok || pathTok.text === '') {
    throw new UserError('--config needs a file name', {
      code: 'E_VLLM_ARGS',
      at: tok.at,
      hint: 'write --config path/to/config.yaml',
    });
  }
  if (inline) {
    notes.push({
      value:
        'vLLM expands the exact token `--config`; whether it honours `--config=FILE` is unconfirmed — faultline reads the file as if written `--config FILE`',
      at: tok.at,
    });
  }
  const loaded = readConfigFileTokens(pathTok.text, {
    baseDir: opts.baseDir,
    readFile: opts.readFile,
    at: pathTok.at,
    index,
  });
  notes.push(...loaded.notes);
  args.set('config', { value: loaded.file, ...(tok.at ? { at: tok.at } : {}) });
  const rest = tokens.filter((_, j) => j !== k && (inline || j !== k + 1));
  const afterModel = mode !== 'api_server' && rest.length > 0 && !rest[0].text.startsWith('-') ? 1 : 0;
  return [...rest.slice(0, afterModel), ...loaded.tokens, ...rest.slice(afterModel)];
}

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
import { readConfigFileTokens } from './vllm-config-file.js';
import { isNegativeNumber, mergeDottedArgs, normalizeSpelling } from './vllm-dotted-args.js';
import {
  ATTENTION_BACKENDS,
  HISTORICAL_ATTENTION_BACKENDS,
  buildFlagIndex,
  closest,
  longOptionOf,
  destOf,
  type FlagIndex,
  type FlagSpec,
} from './vllm-flags.js';
import { humanReadableInt, isPlainObject, pythonFloat, pythonInt, pythonJsonLoads } from './vllm-values.js';

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
  const index = buildFlagIndex(opts.extraFlags);
  const notes: Located<string>[] = [];
  const args = new Map<string, ArgValue>();
  let prepared: PreparedToken[] = tokens.map((t) => ({ ...t, origin: 'cli' as const }));
  prepared = expandConfigFile(prepared, mode, opts, index, notes, args);
  prepared = normalizeSpelling(prepared);
  const merged = mergeDottedArgs(prepared);
  notes.push(...merged.notes);
  const { positionals, origins } = runArgparse(merged.tokens, index, opts, notes, args);
  const model = resolveModel(
    positionals,
    positionalModel,
    mode,
    args,
    notes,
    origins.get('model') === 'yaml',
  );
  checkAttentionBackend(args, notes);
  foldLegacySpeculativeFlags(args, notes);
  return {
    engine: 'vllm',
    entryPoint: mode,
    ...(at ? { at } : {}),
    ...(model ? { model } : {}),
    args,
    notes,
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

/** argparse's split between option-like tokens and values/positionals. */
function looksLikeOption(text: string, index: FlagIndex): boolean {
  if (!text.startsWith('-') || text === '-') return false;
  if (index.lookup(text)) return true;
  const eq = text.indexOf('=');
  if (eq > 0 && index.lookup(text.slice(0, eq))) return true;
  if (isNegativeNumber(text)) return false;
  return !text.includes(' ');
}

function runArgparse(
  tokens: readonly PreparedToken[],
  index: FlagIndex,
  opts: ParseVllmOptions,
  notes: Located<string>[],
  args: Map<string, ArgValue>,
): { positionals: PreparedToken[]; origins: Map<string, PreparedToken['origin']> } {
  const positionals: PreparedToken[] = [];
  const origins = new Map<string, PreparedToken['origin']>();
  const names = new Map<string, string>();
  const noted = new Set<string>();
  let k = 0;
  while (k < tokens.length) {
    const tok = tokens[k];
    const text = tok.text;
    if (text === '--') {
      positionals.push(...tokens.slice(k + 1));
      break;
    }
    if (!looksLikeOption(text, index)) {
      positionals.push(tok);
      k++;
      continue;
    }
    const { name, explicit, match } = resolveOption(tok, index);
    if (!match) {
      k = unknownOption(tokens, k, name, explicit, index, opts, notes, args);
      continue;
    }
    const { spec, negated } = match;
    if (tok.origin === 'dotted' && spec.kind !== 'json') {
      throw new UserError(`${name} takes no dotted sub-keys`, {
        code: 'E_VLLM_ARGS',
        at: tok.at,
        hint: `only JSON-valued flags (--speculative-config, --attention-config, -cc, …) accept ${name}.<key>; write ${name} VALUE`,
      });
    }
    if (spec.note && !noted.has(spec.dest)) {
      noted.add(spec.dest);
      notes.push({ value: `${name}: ${spec.note}`, at: tok.at });
    }
    let value: unknown;
    let keyAt: Record<string, SourceLocation> | undefined;
    k++;
    if (spec.kind === 'bool') {
      if (explicit !== undefined) {
        throw new UserError(`argument ${name}: ignored explicit argument '${explicit}'`, {
          code: 'E_VLLM_ARGS',
          at: tok.at,
          hint: `${name} is an on/off switch: write ${longOptionOf(spec.dest)} to turn it on or --no-${longOptionOf(spec.dest).slice(2)} to turn it off`,
        });
      }
      value = !negated;
    } else if (spec.kind === 'list') {
      const items: string[] = [];
      if (explicit !== undefined) items.push(explicit);
      else
        while (k < tokens.length && tokens[k].text !== '--' && !looksLikeOption(tokens[k].text, index))
          items.push(tokens[k++].text);
      if (items.length === 0) throw missingValue(name, tok, 'at least one value');
      value = items;
    } else {
      let valueTok: PreparedToken;
      if (explicit !== undefined) {
        valueTok = { ...tok, text: explicit };
      } else {
        const next = tokens[k];
        if (!next || next.text === '--' || looksLikeOption(next.text, index))
          throw missingValue(name, tok, 'a value');
        valueTok = next;
        k++;
      }
      if (valueTok.preparsed) {
        value = valueTok.preparsed.value;
        keyAt = valueTok.preparsed.keyAt;
      } else {
        value = convertValue(spec, name, valueTok, notes);
      }
    }
    const arg = { value, ...(tok.at ? { at: tok.at } : {}), ...(keyAt ? { keyAt } : {}) };
    storeArg(spec, name, arg, tok, args, origins, notes, names);
  }
  return { positionals, origins };
}

function resolveOption(
  tok: PreparedToken,
  index: FlagIndex,
): { name: string; explicit?: string; match?: ReturnType<FlagIndex['lookup']> } {
  const text = tok.text;
  const forced = (name: string, explicit?: string) => {
    const spec = tok.forcedDest ? index.lookup(longOptionOf(tok.forcedDest))?.spec : undefined;
    return { name, explicit, match: spec ? { spec, negated: false } : index.lookup(name) };
  };
  if (index.lookup(text)) return forced(text);
  const eq = text.indexOf('=');
  if (eq > 0) return forced(text.slice(0, eq), text.slice(eq + 1));
  // argparse single-character short options take an attached value: -qfp8.
  if (/^-[A-Za-z]./.test(text)) {
    const short = index.lookup(text.slice(0, 2));
    if (short && short.spec.kind !== 'bool')
      return { name: text.slice(0, 2), explicit: text.slice(2), match: short };
  }
  return forced(text);
}

function missingValue(name: string, tok: PreparedToken, what: string): UserError {
  return new UserError(`argument ${name}: expected ${what}`, {
    code: 'E_VLLM_ARGS',
    at: tok.at,
    hint: `write ${name} VALUE or ${name}=VALUE (a value that starts with '-' must use the = form)`,
  });
}

function unknownOption(
  tokens: readonly PreparedToken[],
  k: number,
  name: string,
  explicit: string | undefined,
  index: FlagIndex,
  opts: ParseVllmOptions,
  notes: Located<string>[],
  args: Map<string, ArgValue>,
): number {
  const tok = tokens[k];
  const suggestion = index.suggest(name);
  if (!opts.allowUnknown) {
    const from = tok.text === name || tok.origin !== 'dotted' ? '' : ' (from dotted sub-keys)';
    throw new UserError(`unknown vLLM flag ${name}${from}`, {
      code: 'E_VLLM_UNKNOWN_FLAG',
      at: tok.at,
      hint: suggestion
        ? `did you mean ${suggestion}?`
        : 'faultline does not know this flag; if your vLLM version has it, rerun with --allow-unknown-flags (it is then recorded as a note)',
    });
  }
  // Unknown flags are recorded as notes; their value is a guess: `=v`, else the next non-option token.
  let value: unknown = true;
  let next = k + 1;
  if (explicit !== undefined) value = explicit;
  else if (tokens[next] && tokens[next].text !== '--' && !looksLikeOption(tokens[next].text, index))
    value = tokens[next++].text;
  notes.push({
    value: `unknown vLLM flag ${name}${suggestion ? ` (did you mean ${suggestion}?)` : ''}; recorded as given, its value ${value === true ? 'assumed to be none' : `assumed to be '${String(value)}'`}`,
    at: tok.at,
  });
  args.set(destOf(name), { value, ...(tok.at ? { at: tok.at } : {}) });
  return next;
}

function convertValue(spec: FlagSpec, name: string, tok: PreparedToken, notes: Located<string>[]): unknown {
  const text = tok.text;
  const bad = (why: string, hint: string): UserError =>
    new UserError(`argument ${name}: ${why}`, { code: 'E_VLLM_ARGS', at: tok.at, hint });
  switch (spec.kind) {
    case 'int': {
      if (spec.acceptsAuto && (text.trim() === '-1' || text.trim().toLowerCase() === 'auto')) return -1;
      if (spec.humanReadableInt) {
        const r = humanReadableInt(text);
        if ('error' in r) throw bad(r.error, `${name} takes an integer such as 8192, 8k (8000) or 8K (8192)`);
        return r.value;
      }
      const n = pythonInt(text);
      if (n === undefined) throw bad(`invalid int value: '${text}'`, `${name} takes a whole number`);
      return n;
    }
    case 'float': {
      const x = pythonFloat(text);
      if (x === undefined) throw bad(`invalid float value: '${text}'`, `${name} takes a number such as 0.9`);
      return x;
    }
    case 'json': {
      const r = pythonJsonLoads(text);
      if ('error' in r) {
        throw bad(
          `invalid JSON: ${r.error}`,
          `quote the whole JSON object for the shell and use double quotes inside, e.g. ${name} '{"key": "value", "n": 4}', or give keys one by one: ${name}.key=value`,
        );
      }
      if (!isPlainObject(r.value))
        throw bad(`expected a JSON object, got ${JSON.stringify(r.value)}`, `write ${name} '{"key": value}'`);
      return r.value;
    }
    case 'choice':
      return checkChoice(spec, name, tok, notes);
    default:
      return text;
  }
}

function checkChoice(spec: FlagSpec, name: string, tok: PreparedToken, notes: Located<string>[]): string {
  const value = spec.caseInsensitive ? tok.text.toUpperCase() : tok.text;
  const choices = spec.choices ?? [];
  if (choices.includes(value)) return spec.caseInsensitive && value === 'AUTO' ? 'auto' : value;
  if (
    spec.dest === 'attention_backend' &&
    (HISTORICAL_ATTENTION_BACKENDS as readonly string[]).includes(value)
  ) {
    notes.push({
      value: `${name} ${value}: a backend name of older vLLM releases, not in vLLM 0.23`,
      at: tok.at,
    });
    return value;
  }
  if (spec.choicePolicy === 'open') {
    notes.push({ value: `${name} ${tok.text}: not a value faultline knows; taken as given`, at: tok.at });
    return value;
  }
  const near = closest(value, choices);
  throw new UserError(`argument ${name}: invalid choice '${tok.text}'`, {
    code: 'E_VLLM_ARGS',
    at: tok.at,
    hint: `${near ? `did you mean ${near}? ` : ''}choose one of: ${choices.join(', ')}`,
  });
}

function storeArg(
  spec: FlagSpec,
  name: string,
  value: ArgValue,
  tok: PreparedToken,
  args: Map<string, ArgValue>,
  origins: Map<string, PreparedToken['origin']>,
  notes: Located<string>[],
  names: Map<string, string>,
): void {
  const prev = args.get(spec.dest);
  const prevOrigin = origins.get(spec.dest);
  if (prev !== undefined && prevOrigin !== undefined) {
    const where = prev.at ? ` (earlier: ${prev.at.file}:${prev.at.line}:${prev.at.column})` : '';
    const fromYaml = prevOrigin === 'yaml' && tok.origin !== 'yaml';
    if (spec.kind === 'json' && isPlainObject(prev.value) && isPlainObject(value.value)) {
      const newValue = value.value;
      const lost = Object.keys(prev.value).filter((key) => !Object.hasOwn(newValue, key));
      const why =
        tok.origin === 'dotted' && prevOrigin === 'dotted'
          ? `dotted keys are merged per spelling: ${names.get(spec.dest) ?? '?'}.* and ${name}.* are separate`
          : tok.origin === 'dotted'
            ? 'dotted keys are applied after all other arguments'
            : fromYaml
              ? 'the command line is applied after the --config file'
              : 'the last occurrence wins';
      notes.push({
        value:
          `${name} replaces the earlier ${longOptionOf(spec.dest)} value${where}; vLLM keeps one JSON value per flag and does not merge them (${why})` +
          (lost.length ? `: ${lost.join(', ')} ${lost.length === 1 ? 'is' : 'are'} dropped` : ''),
        at: tok.at,
      });
    } else if (fromYaml) {
      notes.push({
        value: `${name} on the command line overrides the --config file's value${where}`,
        at: tok.at,
      });
    } else {
      notes.push({ value: `${name} is given more than once; the last one wins${where}`, at: tok.at });
    }
  }
  args.set(spec.dest, value);
  origins.set(spec.dest, tok.origin);
  names.set(spec.dest, name);
}

function resolveModel(
  positionals: readonly PreparedToken[],
  positionalModel: boolean,
  mode: Mode,
  args: Map<string, ArgValue>,
  notes: Located<string>[],
  modelFromConfigFile: boolean,
): Located<string> | undefined {
  const stray = positionalModel ? positionals.slice(1) : positionals;
  for (const p of stray) {
    const looksLikeFlag = p.text.trimStart().startsWith('-') && /\s/.test(p.text);
    notes.push({
      value: looksLikeFlag
        ? `argument ${JSON.stringify(p.text)} holds a flag and its value in one argument; vLLM takes it as a stray positional and refuses to start (unrecognized arguments) — split it into two arguments`
        : `stray positional argument ${JSON.stringify(p.text)}: vLLM refuses to start (unrecognized arguments)`,
      ...(p.at ? { at: p.at } : {}),
    });
  }
  const positional = positionalModel ? positionals[0] : undefined;
  const flag = args.get('model');
  let model: Located<string> | undefined;
  if (positional && flag && typeof flag.value === 'string' && !modelFromConfigFile) {
    notes.push({
      value: `the model is given both as a positional (${positional.text}) and with --model (${flag.value}); vLLM refuses to start`,
      ...(positional.at ? { at: positional.at } : {}),
    });
    model = { value: flag.value, ...(flag.at ? { at: flag.at } : {}) };
  } else if (positional) {
    model = { value: positional.text, ...(positional.at ? { at: positional.at } : {}) };
  } else if (flag && typeof flag.value === 'string') {
    model = { value: flag.value, ...(flag.at ? { at: flag.at } : {}) };
  }
  if (model) args.set('model', { ...model });
  else if (mode !== 'args')
    notes.push({ value: 'no model given: vLLM would fall back to its built-in default model' });
  return model;
}

/** attention_config.backend is validated like vLLM's AttentionBackendEnum[value.upper()] and stored upper-cased. */
function checkAttentionBackend(args: Map<string, ArgValue>, notes: Located<string>[]): void {
  const ac = args.get('attention_config');
  const cfg = ac?.value;
  if (!ac || !isPlainObject(cfg) || cfg.backend === undefined || cfg.backend === null) return;
  const at = ac.keyAt?.backend ?? ac.at;
  if (typeof cfg.backend !== 'string') {
    throw new UserError(
      `attention_config.backend must be a backend name, got ${JSON.stringify(cfg.backend)}`,
      {
        code: 'E_VLLM_ARGS',
        at,
        hint: 'e.g. --attention-config.backend=FLASHINFER',
      },
    );
  }
  const name = cfg.backend.toUpperCase();
  if (name === 'AUTO') {
    cfg.backend = 'auto';
  } else if ((ATTENTION_BACKENDS as readonly string[]).includes(name)) {
    cfg.backend = name;
  } else if ((HISTORICAL_ATTENTION_BACKENDS as readonly string[]).includes(name)) {
    cfg.backend = name;
    notes.push({
      value: `attention_config.backend ${name}: a backend name of older vLLM releases, not in vLLM 0.23`,
      ...(at ? { at } : {}),
    });
  } else {
    const near = closest(name, ATTENTION_BACKENDS);
    throw new UserError(`unknown attention backend '${cfg.backend}' in attention_config.backend`, {
      code: 'E_VLLM_ARGS',
      at,
      hint: `${near ? `did you mean ${near}? ` : ''}valid names: ${ATTENTION_BACKENDS.filter((b) => b !== 'AUTO').join(', ')}`,
    });
  }
  const flag = args.get('attention_backend');
  if (flag && flag.value !== 'auto' && cfg.backend !== 'auto') {
    notes.push({
      value:
        'both --attention-backend and attention_config.backend are set: vLLM refuses to start ("attention_backend and attention_config.backend are mutually exclusive")',
      ...(flag.at ? { at: flag.at } : {}),
    });
  }
}

/** vLLM ≤ 0.8 built the speculative config from separate flags; read them as speculative_config when that is absent. */
function foldLegacySpeculativeFlags(args: Map<string, ArgValue>, notes: Located<string>[]): void {
  const model = args.get('speculative_model');
  const n = args.get('num_speculative_tokens');
  if ((!model && !n) || args.has('speculative_config')) return;
  const value: Record<string, unknown> = {};
  const keyAt: Record<string, SourceLocation> = {};
  if (model) {
    if (model.value === '[ngram]') value.method = 'ngram';
    else value.model = model.value;
    if (model.at) keyAt[model.value === '[ngram]' ? 'method' : 'model'] = model.at;
  }
  if (n) {
    value.num_speculative_tokens = n.value;
    if (n.at) keyAt.num_speculative_tokens = n.at;
  }
  const at = (model ?? n)?.at;
  args.set('speculative_config', { value, ...(at ? { at } : {}), keyAt });
  notes.push({
    value: `legacy speculative flags read as speculative_config ${JSON.stringify(value)}`,
    ...(at ? { at } : {}),
  });
}

/**
 * The argparse part of the vLLM argv emulation: after `--config` expansion, spelling and dotted-key
 * merging (vllm-args.ts), walk the tokens left to right the way Python's argparse does — options
 * consume their values by kind, negative numbers and arguments with spaces are values, the last
 * occurrence of a flag wins — converting each value as vLLM's `type=` would.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import type { PreparedToken } from './argv-token.js';
import { jsonWithRuntimeFields } from './json-runtime-fields.js';
import { isNegativeNumber } from './vllm-dotted-args.js';
import {
  HISTORICAL_ATTENTION_BACKENDS,
  closest,
  destOf,
  longOptionOf,
  type FlagIndex,
  type FlagSpec,
} from './vllm-flags.js';
import type { ArgValue, FlagProblem, ParseVllmOptions, RuntimeValue } from './vllm-parse-types.js';
import { releasesWithOption } from './vllm-flag-table.js';
import { reportUnknown, type UnknownValueSink } from './unknown-values.js';
import { humanReadableInt, isPlainObject, pythonFloat, pythonInt, pythonJsonLoads } from './vllm-values.js';

/** argparse's split between option-like tokens and values/positionals. */
export function looksLikeOption(text: string, index: FlagIndex): boolean {
  if (!text.startsWith('-') || text === '-') return false;
  if (index.lookup(text)) return true;
  const eq = text.indexOf('=');
  if (eq > 0 && index.lookup(text.slice(0, eq))) return true;
  if (index.abbreviation(eq > 0 ? text.slice(0, eq) : text)) return true;
  if (isNegativeNumber(text)) return false;
  return !text.includes(' ');
}

export function runArgparse(
  tokens: readonly PreparedToken[],
  index: FlagIndex,
  opts: ParseVllmOptions,
  notes: Located<string>[],
  args: Map<string, ArgValue>,
  problems: FlagProblem[] = [],
  choiceTable: { authoritative: boolean; release?: string } = { authoritative: false },
): { positionals: PreparedToken[]; origins: Map<string, PreparedToken['origin']> } {
  const positionals: PreparedToken[] = [];
  const origins = new Map<string, PreparedToken['origin']>();
  const names = new Map<string, string>();
  const noted = new Set<string>();
  const values: ValueContext = {
    notes,
    problems,
    allowUnknown: opts.allowUnknown ?? false,
    authoritative: choiceTable.authoritative,
    ...(choiceTable.release ? { release: choiceTable.release } : {}),
  };
  let k = 0;
  while (k < tokens.length) {
    const tok = tokens[k];
    const text = tok.text;
    if (text === '--') {
      positionals.push(...tokens.slice(k + 1));
      break;
    }
    if (tok.spread) {
      const names = tok.runtime?.names.length ? tok.runtime.names : [];
      notes.push({
        value: `${text} adds arguments known only when the launch runs; they are not checked${names.length ? ` (give them with --set ${names[0]}='--flag value …')` : ''}`,
        at: tok.at,
      });
      k++;
      continue;
    }
    if (!looksLikeOption(text, index)) {
      positionals.push(tok);
      k++;
      continue;
    }
    const { name, explicit, match, ambiguous } = resolveOption(tok, index);
    if (!match) {
      k = unknownOption(tokens, k, name, explicit, index, opts, notes, args, problems, ambiguous);
      continue;
    }
    if (match.expandedFrom)
      notes.push({ value: `${match.expandedFrom} is an abbreviation: vLLM's parser (argparse) takes it as ${name}`, at: tok.at });
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
    let runtime: RuntimeValue | undefined;
    let runtimeKeys: Record<string, RuntimeValue> | undefined;
    k++;
    if (spec.kind === 'optional' && explicit === undefined) {
      // nargs='?': a value only when the next token is not an option; alone it means "on".
      const next = tokens[k];
      if (next && next.text !== '--' && !looksLikeOption(next.text, index)) {
        value = next.text;
        runtime = runtimeOf(next);
        k++;
      } else value = true;
    } else if (spec.kind === 'optional') {
      value = explicit;
    } else if (spec.kind === 'bool') {
      const legacyValue = explicit === undefined ? undefined : configBoolText(explicit);
      if (legacyValue !== undefined) {
        // vLLM < 0.11 had StoreBoolean flags that took --x=true / --x=false; BooleanOptionalAction refuses it.
        notes.push({ value: `${name}=${explicit}: older vLLM releases took a true/false value here; releases with --no-${longOptionOf(spec.dest).slice(2)} refuse it ("ignored explicit argument")`, at: tok.at });
        if (choiceTable.authoritative) problems.push({ kind: 'unknown', option: `${name}=${explicit}`, ...(tok.at ? { at: tok.at } : {}), suggestion: legacyValue ? longOptionOf(spec.dest) : `--no-${longOptionOf(spec.dest).slice(2)}` });
        value = legacyValue;
      } else if (explicit !== undefined) {
        throw new UserError(`argument ${name}: ignored explicit argument '${explicit}'`, {
          code: 'E_VLLM_ARGS',
          at: tok.at,
          hint: `${name} is an on/off switch: write ${longOptionOf(spec.dest)} to turn it on or --no-${longOptionOf(spec.dest).slice(2)} to turn it off`,
        });
      } else value = !negated;
    } else if (spec.kind === 'list') {
      const items: string[] = [];
      if (explicit !== undefined) items.push(explicit);
      else
        while (k < tokens.length && tokens[k].text !== '--' && !looksLikeOption(tokens[k].text, index)) {
          runtime ??= runtimeOf(tokens[k]);
          items.push(tokens[k++].text);
        }
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
        runtime = runtimeOf(valueTok);
        const partial =
          runtime && spec.kind === 'json' ? jsonWithRuntimeFields(valueTok.text, runtime) : undefined;
        if (partial) {
          value = partial.value;
          runtimeKeys = partial.runtimeKeys;
          runtime = undefined;
          const which = Object.entries(partial.runtimeKeys)
            .map(([key, rt]) => `${key} (${rt.text})`)
            .join(', ');
          notes.push({
            value: `${name}: ${which} known only when the launch runs; the other keys are read as written`,
            at: valueTok.at ?? tok.at,
          });
        } else value = convertValue(spec, name, valueTok, values);
      }
    }
    const arg: ArgValue = {
      value,
      ...(tok.at ? { at: tok.at } : {}),
      ...(keyAt ? { keyAt } : {}),
      ...(runtime ? { runtime } : {}),
      ...(runtimeKeys ? { runtimeKeys } : {}),
    };
    storeArg(spec, name, arg, tok, args, origins, notes, names);
  }
  return { positionals, origins };
}

function configBoolText(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  return t === 'true' ? true : t === 'false' ? false : undefined;
}

function resolveOption(
  tok: PreparedToken,
  index: FlagIndex,
): { name: string; explicit?: string; match?: ReturnType<FlagIndex['lookup']>; ambiguous?: string[] } {
  const text = tok.text;
  const forced = (name: string, explicit?: string) => {
    const spec = tok.forcedDest ? index.lookup(longOptionOf(tok.forcedDest))?.spec : undefined;
    return { name, explicit, match: spec ? { spec, negated: false } : index.lookup(name) };
  };
  if (index.lookup(text)) return forced(text);
  const eq = text.indexOf('=');
  if (eq > 0 && index.lookup(text.slice(0, eq))) return forced(text.slice(0, eq), text.slice(eq + 1));
  // argparse single-character short options take an attached value: -qfp8.
  if (/^-[A-Za-z]./.test(text) && eq < 0) {
    const short = index.lookup(text.slice(0, 2));
    if (short && short.spec.kind !== 'bool')
      return { name: text.slice(0, 2), explicit: text.slice(2), match: short };
  }
  // argparse allow_abbrev (vLLM leaves it on): a unique prefix of a long option is that option.
  const written = eq > 0 ? text.slice(0, eq) : text;
  const explicit = eq > 0 ? text.slice(eq + 1) : undefined;
  if (!tok.forcedDest) {
    const abbrev = index.abbreviation(written);
    if (abbrev && 'match' in abbrev) return { name: abbrev.option, explicit, match: abbrev.match };
    if (abbrev && 'ambiguous' in abbrev) return { name: written, explicit, ambiguous: abbrev.ambiguous };
  }
  return forced(written, explicit);
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
  problems: FlagProblem[],
  ambiguous: string[] | undefined,
): number {
  const tok = tokens[k];
  const suggestion = ambiguous ? undefined : index.suggest(name);
  // The value is a guess: `=v`, else the next token when it does not look like an option.
  let value: unknown = true;
  let next = k + 1;
  if (explicit !== undefined) value = explicit;
  else if (tokens[next] && tokens[next].text !== '--' && !looksLikeOption(tokens[next].text, index))
    value = tokens[next++].text;
  const guessed = value === true ? 'assumed to take no value' : `its value assumed to be '${String(value)}'`;
  if (opts.allowUnknown || ambiguous) {
    notes.push({
      value: ambiguous
        ? `ambiguous option: ${name} could match ${ambiguous.join(', ')} (vLLM refuses to start); not read`
        : `unknown vLLM flag ${name}${suggestion ? ` (did you mean ${suggestion}?)` : ''}; recorded as given, ${guessed}`,
      at: tok.at,
    });
  }
  if (ambiguous) {
    problems.push({ kind: 'ambiguous', option: name, ...(tok.at ? { at: tok.at } : {}), candidates: ambiguous });
    return next;
  }
  if (!opts.allowUnknown) {
    const knownIn = releasesWithOption(name);
    problems.push({
      kind: 'unknown',
      option: name,
      ...(tok.at ? { at: tok.at } : {}),
      ...(suggestion ? { suggestion } : {}),
      ...(knownIn.length ? { knownIn } : {}),
    });
  }
  args.set(destOf(name), { value, ...(tok.at ? { at: tok.at } : {}) });
  return next;
}

/** `$NAME`, `${NAME}` (shell, Compose) or `$(NAME)` (Kubernetes) left unexpanded by a launch-file source. */
const UNSET_VARIABLE = /^\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*\}|\([A-Za-z_][\w.-]*\))$/;

/** A shell expansion a launch-file source kept as written inside a value. */
const SHELL_EXPANSION = /\$(?:\{|\(|[A-Za-z_0-9@*])/;

/** A value token known only at run time: marked by its source, or a bare unexpanded variable. */
function runtimeOf(tok: PreparedToken): RuntimeValue | undefined {
  if (tok.runtime) return tok.runtime;
  // A Go / Helm template placeholder (`{{ .Values.tp }}`), filled in when the manifest is rendered.
  if (tok.text.includes('{{')) return { text: tok.text, why: `${tok.text} is a template placeholder filled in when the manifest is rendered`, names: [] };
  if (!UNSET_VARIABLE.test(tok.text)) return undefined;
  const name = /[A-Za-z_][\w.-]*/.exec(tok.text)?.[0] ?? '';
  return { text: tok.text, why: `${tok.text} is not set in the launch file`, names: [name] };
}

/** Where a value outside the table goes, and whether the table is the launch's own release. */
interface ValueContext extends UnknownValueSink {
  authoritative: boolean;
  /** The table's release, for messages. */
  release?: string;
}

function convertValue(spec: FlagSpec, name: string, tok: PreparedToken, ctx: ValueContext): unknown {
  const notes = ctx.notes;
  const text = tok.text;
  const bad = (why: string, hint: string): UserError =>
    new UserError(`argument ${name}: ${why}`, { code: 'E_VLLM_ARGS', at: tok.at, hint });
  // `--port $PORT` where the launch file leaves PORT to its caller (the sources keep such a
  // variable as written): the value is unknown, which is not a malformed value.
  if (tok.runtime || text.includes('{{') || (spec.kind !== 'string' && spec.kind !== 'bool' && UNSET_VARIABLE.test(text))) {
    notes.push({ value: `${name} ${text}: the value is known only when the launch runs; unknown here`, at: tok.at });
    return text;
  }
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
      if ('error' in r && spec.orString) return text;
      if ('error' in r && SHELL_EXPANSION.test(text)) {
        // A JSON text with a shell expansion the source kept as written: its value is known only at run time.
        notes.push({ value: `${name}: the JSON value contains ${SHELL_EXPANSION.exec(text)?.[0]}…, known only when the launch runs; unknown here`, at: tok.at });
        return text;
      }
      if (!('error' in r) && typeof r.value === 'number' && Number.isInteger(r.value) && spec.dest === 'compilation_config') {
        // vLLM releases where -O was --compilation-config took an optimization level as the value.
        notes.push({ value: `${name} ${text}: the older value form (an optimization level), read as {"level": ${text}}; current vLLM takes -O${text}`, at: tok.at });
        return { level: r.value };
      }
      if ('error' in r) {
        throw bad(
          `invalid JSON: ${r.error}`,
          `quote the whole JSON object for the shell and use double quotes inside, e.g. ${name} '{"key": "value", "n": 4}', or give keys one by one: ${name}.key=value`,
        );
      }
      if (!isPlainObject(r.value) && spec.orString) return text;
      if (!isPlainObject(r.value))
        throw bad(`expected a JSON object, got ${JSON.stringify(r.value)}`, `write ${name} '{"key": value}'`);
      return r.value;
    }
    case 'choice':
      return checkChoice(spec, name, tok, ctx);
    default:
      return text;
  }
}

function checkChoice(spec: FlagSpec, name: string, tok: PreparedToken, ctx: ValueContext): string {
  const value = spec.caseInsensitive ? tok.text.toUpperCase() : tok.text;
  const choices = spec.choices ?? [];
  if (choices.includes(value)) return spec.caseInsensitive && value === 'AUTO' ? 'auto' : value;
  if (
    spec.dest === 'attention_backend' &&
    (HISTORICAL_ATTENTION_BACKENDS as readonly string[]).includes(value)
  ) {
    ctx.notes.push({
      value: `${name} ${value}: a backend name of older vLLM releases, not in vLLM 0.23`,
      at: tok.at,
    });
    return value;
  }
  if (spec.choicePolicy === 'open') {
    ctx.notes.push({ value: `${name} ${tok.text}: not a value faultline knows; taken as given`, at: tok.at });
    return value;
  }
  const near = closest(value, choices);
  if (ctx.authoritative || spec.choicePolicy === 'strict')
    throw new UserError(`argument ${name}: invalid choice '${tok.text}'`, {
      code: 'E_VLLM_ARGS',
      at: tok.at,
      hint: `${near ? `did you mean ${near}? ` : ''}choose one of: ${choices.join(', ')}`,
    });
  // Off the launch's own release the value may be one a newer vLLM added: FL000, read as given.
  const table = ctx.release ? `vLLM ${ctx.release}` : 'vLLM';
  reportUnknown(
    ctx,
    {
      kind: 'choice',
      option: name,
      value: tok.text,
      ...(tok.at ? { at: tok.at } : {}),
      ...(near ? { suggestion: near } : {}),
      checkedAgainst: `the ${name} choices of faultline's flag tables (to ${table})`,
    },
    `${name} ${tok.text}: not a choice faultline's flag tables (to ${table}) have; taken as given`,
  );
  return value;
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
  if (spec.append) {
    // action='append': each occurrence adds to the list.
    const items = prev && Array.isArray(prev.value) ? [...(prev.value as unknown[])] : [];
    args.set(spec.dest, { ...value, value: [...items, value.value], ...(prev?.at ? { at: prev.at } : {}) });
    origins.set(spec.dest, tok.origin);
    names.set(spec.dest, name);
    return;
  }
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

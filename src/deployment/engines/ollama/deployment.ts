/**
 * What an Ollama server runs with, read as Ollama reads it (envconfig): `ollama serve` takes no
 * flags, its settings are OLLAMA_* variables, each trimmed of spaces and quotes; a boolean is
 * strconv.ParseBool (any other non-empty value counts as true), an unsigned number that does not
 * parse is ignored with a warning (the default applies). A variable the table does not have has
 * no effect (a note says so; Ollama refuses nothing). A Modelfile is a model definition, not a
 * launch: its PARAMETERs (num_ctx …) are that model's defaults in whichever server runs it, and a
 * request's options win over them.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Located } from '../../../core/located.js';
import type { ServingFact, ServingFacts } from '../../serving-facts.js';
import { ollamaEnvTable, ollamaVariable } from './env-table.js';
import type { Modelfile } from './modelfile.js';

const RUNTIME = /\$\{|\$\(|\$[A-Za-z_]/;

export interface OllamaRead {
  facts: ServingFacts;
  notes: Located<string>[];
}

/** Ollama's envconfig.Var: spaces, then quotes, trimmed. */
function clean(v: string): string {
  return v.trim().replace(/^["']+|["']+$/g, '');
}

const GO_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const GO_FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];

function at(a: SourceLocation | undefined): { at?: SourceLocation } {
  return a ? { at: a } : {};
}

export function ollamaServerFacts(env: Map<string, Located<string>>, origin?: SourceLocation): OllamaRead {
  const table = ollamaEnvTable();
  const notes: Located<string>[] = [];
  const facts: ServingFacts = {};
  for (const [name, v] of env) {
    if (!/^OLLAMA_/.test(name)) continue;
    if (!ollamaVariable(name))
      notes.push({
        value: `${name}: not a variable Ollama ${table.ollamaVersion} reads (envconfig/config.go); it has no effect`,
        ...at(v.at),
      });
  }
  const get = (name: string) => env.get(name);
  const runtimeFact = <T>(name: string, v: Located<string>): ServingFact<T> => ({
    value: v.value as T,
    from: 'env',
    option: name,
    ...at(v.at),
    runtime: {
      text: v.value,
      why: `${name} is set when the server starts`,
      names: [...v.value.matchAll(/\$\{?\(?([A-Za-z_]\w*)/g)].map((m) => m[1]),
    },
  });
  const uintFact = (name: string): ServingFact<number | string> | undefined => {
    const v = get(name);
    if (!v) return undefined;
    if (RUNTIME.test(v.value)) return runtimeFact(name, v);
    const text = clean(v.value);
    if (text === '') return undefined;
    if (!/^\d+$/.test(text)) {
      notes.push({
        value: `${name}=${v.value}: not an unsigned number; Ollama warns "invalid environment variable, using default" and uses ${String(ollamaVariable(name)?.default ?? 'its default')}`,
        ...at(v.at),
      });
      return undefined;
    }
    return { value: Number(text), from: 'env', option: name, ...at(v.at) };
  };
  const ctx = uintFact('OLLAMA_CONTEXT_LENGTH');
  if (ctx) facts.ctxSize = ctx;
  else facts.ctxSize = { value: 0, from: 'default', option: 'OLLAMA_CONTEXT_LENGTH', ...at(origin) };
  const parallel = uintFact('OLLAMA_NUM_PARALLEL');
  facts.parallel = parallel ?? {
    value: Number(ollamaVariable('OLLAMA_NUM_PARALLEL')?.default ?? 1),
    from: 'default',
    option: 'OLLAMA_NUM_PARALLEL',
    ...at(origin),
  };
  const fa = get('OLLAMA_FLASH_ATTENTION');
  if (fa) {
    if (RUNTIME.test(fa.value)) facts.flashAttn = runtimeFact('OLLAMA_FLASH_ATTENTION', fa);
    else {
      const text = clean(fa.value);
      if (text !== '') {
        const on = GO_TRUE.includes(text) ? true : GO_FALSE.includes(text) ? false : undefined;
        if (on === undefined)
          notes.push({
            value: `OLLAMA_FLASH_ATTENTION=${fa.value}: not a boolean strconv.ParseBool reads; Ollama takes any other non-empty value as true`,
            ...at(fa.at),
          });
        facts.flashAttn = {
          value: on === false ? 'off' : 'on',
          from: 'env',
          option: 'OLLAMA_FLASH_ATTENTION',
          ...at(fa.at),
        };
      }
    }
  }
  const kv = get('OLLAMA_KV_CACHE_TYPE');
  if (kv && clean(kv.value) !== '') {
    const f: ServingFact<string> = RUNTIME.test(kv.value)
      ? runtimeFact('OLLAMA_KV_CACHE_TYPE', kv)
      : { value: clean(kv.value).toLowerCase(), from: 'env', option: 'OLLAMA_KV_CACHE_TYPE', ...at(kv.at) };
    facts.cacheTypeK = f;
    facts.cacheTypeV = f;
    if (facts.flashAttn?.value === 'off')
      notes.push({
        value: `OLLAMA_KV_CACHE_TYPE=${kv.value} with flash attention off: Ollama quantizes the KV cache only with flash attention, so it runs f16`,
        ...at(kv.at),
      });
  } else {
    const d = String(ollamaVariable('OLLAMA_KV_CACHE_TYPE')?.default ?? 'f16');
    facts.cacheTypeK = { value: d, from: 'default', option: 'OLLAMA_KV_CACHE_TYPE', ...at(origin) };
    facts.cacheTypeV = { value: d, from: 'default', option: 'OLLAMA_KV_CACHE_TYPE', ...at(origin) };
  }
  return { facts, notes };
}

/** A Modelfile's facts: the model it is built FROM and the PARAMETERs a server's runner takes from it. */
export function modelfileFacts(mf: Modelfile): OllamaRead {
  const facts: ServingFacts = {};
  const notes: Located<string>[] = [];
  if (mf.from) facts.model = { value: mf.from.value, from: 'modelfile', option: 'FROM', ...at(mf.from.at) };
  const intParam = (name: string): ServingFact<number | string> | undefined => {
    const v = mf.parameters.get(name)?.at(-1);
    if (!v) return undefined;
    const n = /^-?\d+$/.test(v.value) ? Number(v.value) : undefined;
    if (n === undefined)
      notes.push({
        value: `PARAMETER ${name} ${v.value}: not an integer (ollama create refuses it)`,
        ...at(v.at),
      });
    return { value: n ?? v.value, from: 'modelfile', option: name, ...at(v.at) };
  };
  const ctx = intParam('num_ctx');
  if (ctx) facts.ctxSize = ctx;
  const gpu = intParam('num_gpu');
  if (gpu) facts.nGpuLayers = gpu;
  for (const [name, values] of mf.parameters)
    if (values.length > 1 && name !== 'stop')
      notes.push({
        value: `PARAMETER ${name} is given ${values.length} times; the last (${values[values.length - 1].value}) is used`,
        ...at(values[values.length - 1].at),
      });
  return { facts, notes };
}

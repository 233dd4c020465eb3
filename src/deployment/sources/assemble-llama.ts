/**
 * LaunchCommand → Deployment for llama-server and Ollama (and an Ollama Modelfile, a model
 * definition): the engine's own reading (engines/llama-cpp/, engines/ollama/), the version the file
 * gives (--llama-cpp-version, else the build an official llama.cpp image tag names; the release an
 * ollama/ollama tag names), and the same model, GPU and location rules as the vLLM path
 * (assemble.ts). A note says what was read, so `lint` prints it as it prints vLLM's.
 */
import type { SourceLocation } from '../../core/errors.js';
import { UserError } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { Deployment } from '../deployment.js';
import { llamaCppImage, llamaServerProgram } from '../engines/llama-cpp/command.js';
import { parseLlamaCppLaunch } from '../engines/llama-cpp/deployment.js';
import { parseLlamaCppVersion, versionText, type LlamaCppVersion } from '../engines/llama-cpp/flag-table.js';
import { ollamaEnvTable, ollamaImage } from '../engines/ollama/env-table.js';
import { modelfileFacts, ollamaServerFacts } from '../engines/ollama/deployment.js';
import { SERVING_FACT_NAMES, type ServingFacts } from '../serving-facts.js';
import { addHardwareFacts, located, modelFacts, type AssembleOptions } from './assemble.js';
import type { LaunchCommand } from './launch-command.js';

type Relocate = (at: SourceLocation | undefined) => SourceLocation | undefined;

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Which of these engines a launch's tokens start, if any. */
export function llamaFamilyEngine(launch: LaunchCommand): 'llama.cpp' | 'ollama' | undefined {
  if (launch.modelfile) return 'ollama';
  if (llamaServerProgram(launch.tokens)) return 'llama.cpp';
  if (basename(launch.tokens[0]?.text ?? '') === 'ollama' && launch.tokens[1]?.text === 'serve')
    return 'ollama';
  return undefined;
}

export function assembleLlamaFamilyDeployment(
  launch: LaunchCommand,
  opts: AssembleOptions,
  relocate: Relocate,
): Deployment {
  return llamaFamilyEngine(launch) === 'llama.cpp'
    ? assembleLlamaCpp(launch, opts, relocate)
    : assembleOllama(launch, opts, relocate);
}

/** --model-config (a GGUF header, a config.json) or a hazard example's preset: the model the launch serves. */
function addExplicitModelFacts(d: Deployment, launch: LaunchCommand, opts: AssembleOptions): void {
  if (!opts.knownModelFacts && !opts.modelConfig) return;
  const facts = modelFacts(launch, d, opts);
  if (facts) d.modelFacts = facts;
}

function assembleLlamaCpp(launch: LaunchCommand, opts: AssembleOptions, relocate: Relocate): Deployment {
  const notes: Located<string>[] = [...launch.notes];
  const version = llamaCppVersionOf(launch, opts, notes);
  const parsed = parseLlamaCppLaunch(
    launch.tokens,
    launch.env,
    version?.version,
    opts.allowUnknownFlags ?? false,
  );
  notes.push(...parsed.notes.map((n) => ({ value: n.value, ...located(relocate(n.at)) })));
  const model = parsed.model && { value: parsed.model.value, ...located(relocate(parsed.model.at)) };
  const image = llamaCppImage(launch.image?.value);
  const args = new Map<string, Located<unknown>>();
  for (const [k, v] of parsed.args) {
    const { spec: _spec, ...rest } = v;
    args.set(k, { ...rest, ...located(relocate(v.at) ?? v.at) });
  }
  const facts = relocateFacts(parsed.facts, relocate);
  const entry = entryOf(launch, image);
  const d: Deployment = {
    source: launch.source,
    engine: 'llama.cpp',
    ...located(relocate(parsed.at) ?? launch.tokens[0]?.at),
    argv: launch.tokens.map((t) => ({ text: t.text, ...located(relocate(t.at)) })),
    ...(model ? { model } : {}),
    args,
    env: launch.env,
    versions: version ? { llamaCpp: version.located } : {},
    notes,
    flagProblems: parsed.flagProblems.map((p) => ({ ...p, ...located(relocate(p.at)) })),
    flagTable: parsed.flagTable,
    llamaCpp: {
      table: {
        tag: parsed.chosen.table.llamaCppTag,
        commit: parsed.chosen.table.source.commit,
        repository: parsed.chosen.table.source.repository,
      },
      ...(version && 'build' in version.version ? { build: version.version.build } : {}),
      entry,
      facts,
      envRead: parsed.envRead,
    },
    ...(launch.role ? { role: launch.role } : {}),
  };
  addExplicitModelFacts(d, launch, opts);
  addHardwareFacts(d, launch, opts, notes);
  notes.push({ value: readLine('llama-server', facts), ...located(d.at) });
  return d;
}

function assembleOllama(launch: LaunchCommand, opts: AssembleOptions, relocate: Relocate): Deployment {
  const notes: Located<string>[] = [...launch.notes];
  const table = ollamaEnvTable();
  const mf = launch.modelfile;
  const start = relocate(launch.tokens[0]?.at ?? mf?.from?.at) ?? {
    file: launch.source.file,
    line: 1,
    column: 1,
  };
  const read = mf ? modelfileFacts(mf) : ollamaServerFacts(launch.env, start);
  notes.push(...read.notes.map((n) => ({ value: n.value, ...located(relocate(n.at)) })));
  if (!mf && launch.tokens.length > 2)
    notes.push({
      value: `ollama serve takes no arguments but ${launch.tokens
        .slice(2)
        .map((t) => t.text)
        .join(' ')}; its settings are OLLAMA_* variables`,
      ...located(relocate(launch.tokens[2].at)),
    });
  if (mf)
    notes.push({
      value:
        "an Ollama Modelfile is a model definition, not a server launch: its PARAMETERs are the defaults of this model in whichever Ollama server runs it (num_ctx wins over that server's OLLAMA_CONTEXT_LENGTH; a request's options win over both); the server's own settings are not in this file",
      ...located(start),
    });
  const version = ollamaVersionOf(launch, notes);
  const facts = relocateFacts(read.facts, relocate);
  const models = launch.ollamaModels ?? [];
  const model =
    facts.model?.value !== undefined
      ? { value: facts.model.value, ...located(facts.model.at) }
      : models.length === 1
        ? models[0]
        : undefined;
  if (!mf && models.length === 1)
    notes.push({
      value: `the file has the server pull ${models[0].value}; read as its model`,
      ...located(models[0].at),
    });
  if (!mf && !model)
    notes.push({
      value: 'Ollama serves whichever models are pulled into it; the file names none',
      ...located(start),
    });
  const d: Deployment = {
    source: launch.source,
    engine: 'ollama',
    at: start,
    argv: launch.tokens.map((t) => ({ text: t.text, ...located(relocate(t.at)) })),
    ...(model ? { model } : {}),
    args: new Map(),
    env: launch.env,
    versions: version ? { ollama: version } : {},
    notes,
    flagProblems: [],
    ollama: {
      definition: mf ? 'modelfile' : 'server',
      table: {
        version: table.ollamaVersion,
        commit: table.source.commit,
        repository: table.source.repository,
      },
      facts,
      ...(mf
        ? {
            parameters: Object.fromEntries(
              [...mf.parameters].map(([k, v]) => [
                k,
                v.map((x) => ({ value: x.value, ...located(relocate(x.at)) })),
              ]),
            ),
          }
        : {}),
      models,
    },
    ...(launch.role ? { role: launch.role } : {}),
  };
  addExplicitModelFacts(d, launch, opts);
  addHardwareFacts(d, launch, opts, notes);
  notes.push({ value: readLine(mf ? 'Modelfile' : 'ollama serve', facts), ...located(start) });
  return d;
}

function relocateFacts(facts: ServingFacts, relocate: Relocate): ServingFacts {
  const out: ServingFacts = {};
  for (const [k, f] of Object.entries(facts) as [
    keyof ServingFacts,
    NonNullable<ServingFacts[keyof ServingFacts]>,
  ][]) {
    const at = relocate(f.at) ?? f.at;
    const overridden = f.overridden && {
      ...f.overridden,
      ...located(relocate(f.overridden.at) ?? f.overridden.at),
    };
    (out as Record<string, unknown>)[k] = {
      ...f,
      ...(at ? { at } : {}),
      ...(overridden ? { overridden } : {}),
    };
  }
  return out;
}

const LABELS: Record<(typeof SERVING_FACT_NAMES)[number], string> = {
  model: 'model',
  ctxSize: 'context',
  parallel: 'parallel',
  flashAttn: 'flash attention',
  cacheTypeK: 'KV cache K',
  cacheTypeV: 'KV cache V',
  swaFull: 'full SWA cache',
  contextShift: 'context shift',
  draftModel: 'draft model',
  specType: 'speculative',
  draftMax: 'draft max',
  cacheReuse: 'cache reuse',
  cachePrompt: 'prompt cache',
  nGpuLayers: 'GPU layers',
};

/** "read: model X (-m), context 8192 (-c), …; other facts are defaults". */
function readLine(what: string, facts: ServingFacts): string {
  const parts: string[] = [];
  for (const name of SERVING_FACT_NAMES) {
    const f = facts[name];
    if (!f || f.from === 'default') continue;
    const v = Array.isArray(f.value) ? f.value.join(',') : String(f.value);
    parts.push(`${LABELS[name]} ${v} (${f.option ?? f.from}${f.runtime ? ', at run time' : ''})`);
  }
  return parts.length
    ? `${what} read: ${parts.join(', ')}; the rest are defaults`
    : `${what} read: nothing set; every fact is a default`;
}

function llamaCppVersionOf(
  launch: LaunchCommand,
  opts: AssembleOptions,
  notes: Located<string>[],
): { version: LlamaCppVersion; located: Located<string> } | undefined {
  if (opts.llamaCppVersion) {
    const v = parseLlamaCppVersion(opts.llamaCppVersion);
    if (!v)
      throw new UserError(`--llama-cpp-version "${opts.llamaCppVersion}" is not a llama.cpp version`, {
        code: 'E_USAGE',
        hint: 'give a build (b6123) or a release tag (v0.4.0)',
      });
    return { version: v, located: { value: versionText(v) } };
  }
  const image = launch.image && llamaCppImage(launch.image.value);
  if (image?.build !== undefined && launch.image) {
    notes.push({
      value: `llama.cpp build b${image.build} taken from the image tag ${launch.image.value}`,
      ...located(launch.image.at),
    });
    return {
      version: { build: image.build },
      located: { value: `b${image.build}`, ...located(launch.image.at) },
    };
  }
  if (image && launch.image)
    notes.push({
      value: `the image tag ${image.tag} names no build: the llama.cpp version is unknown`,
      ...located(launch.image.at),
    });
  return undefined;
}

function ollamaVersionOf(launch: LaunchCommand, notes: Located<string>[]): Located<string> | undefined {
  const image = launch.image && ollamaImage(launch.image.value);
  if (!image || !launch.image) return undefined;
  if (image.version) {
    notes.push({
      value: `Ollama ${image.version} taken from the image tag ${launch.image.value}`,
      ...located(launch.image.at),
    });
    return { value: image.version, ...located(launch.image.at) };
  }
  notes.push({
    value: `the image ${launch.image.value} names no release${image.tag ? ` (tag ${image.tag})` : ''}: the Ollama version is unknown`,
    ...located(launch.image.at),
  });
  return undefined;
}

/** How the server was started: an image entrypoint form puts a made-up `llama-server` word at the image (or at `--server`). */
function entryOf(
  launch: LaunchCommand,
  image: ReturnType<typeof llamaCppImage>,
): NonNullable<Deployment['llamaCpp']>['entry'] {
  if (llamaServerProgram(launch.tokens) === 'server') return 'server';
  const first = launch.tokens[0];
  const same = (a: SourceLocation | undefined, b: SourceLocation | undefined) =>
    Boolean(a && b && a.file === b.file && a.line === b.line && a.column === b.column);
  if (image?.variant === 'server' && first?.text === 'llama-server' && same(first.at, launch.image?.at))
    return 'server-image';
  if (image?.variant === 'full' && first?.text === 'llama-server') return 'full-image';
  return 'llama-server';
}

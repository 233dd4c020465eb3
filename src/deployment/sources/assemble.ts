/**
 * LaunchCommand → Deployment: the vLLM argv emulation on the tokens, then the facts around
 * them — model facts (an explicit --model-config, else a local model directory with a
 * config.json, looked up through docker mounts), the GPU (the CLI option wins over manifest
 * labels), versions (CLI options, else an official vllm/vllm-openai image tag) — and every
 * location rewritten to point at what the user wrote (heredoc lines, not a virtual file).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isUserError, UserError, type SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { Deployment, GpuFacts, ModelFacts } from '../deployment.js';
import { parseGpu } from '../gpu.js';
import { platformOf } from '../platform.js';
import { readModelFacts } from '../model-config.js';
import { parseVersion } from '../versions.js';
import { parseVllmCommand } from '../vllm-args.js';
import { sglangProgramLength } from '../engines/sglang/command.js';
import { assembleSglangDeployment } from './assemble-sglang.js';
import { assembleLlamaFamilyDeployment, llamaFamilyEngine } from './assemble-llama.js';
import type { LaunchCommand } from './launch-command.js';
import { modelFamilyOf } from '../model-family.js';

export interface AssembleOptions {
  /** Path to a config.json or model directory (the CLI's --model-config), relative to cwd. */
  modelConfig?: string;
  /** Model facts already read (hazard examples' model presets); win over modelConfig. */
  knownModelFacts?: ModelFacts;
  /** The CLI's --gpu: wins over GPU labels found in manifests. */
  gpu?: string;
  vllmVersion?: string;
  flashinferVersion?: string;
  /** The CLI's --sglang-version (SGLang launches). */
  sglangVersion?: string;
  /** The CLI's --llama-cpp-version (llama-server launches): a build (b6123) or a release tag (v0.4.0). */
  llamaCppVersion?: string;
  cwd: string;
  /** Note flags vLLM does not know instead of failing on them. */
  allowUnknownFlags?: boolean;
  /** Absolute path → the path as the user wrote it, for locations. */
  displayPaths?: Map<string, string>;
}

/** Where the KServe storage initializer mounts the model; the argv then only names this path. */
const KSERVE_MOUNT = '/mnt/models';
const OFFICIAL_IMAGE = /^(?:docker\.io\/)?vllm\/vllm-openai:v?(\d+\.\d+\.\d+[\w.+-]*)$/;

export function assembleDeployment(launch: LaunchCommand, opts: AssembleOptions): Deployment {
  const relocate = relocator(launch, opts);
  if (sglangProgramLength(launch.tokens) !== undefined)
    return assembleSglangDeployment(launch, opts, relocate);
  if (llamaFamilyEngine(launch)) return assembleLlamaFamilyDeployment(launch, opts, relocate);
  const notes0: Located<string>[] = [];
  const versions = versionsOf(launch, opts, notes0);
  const parsed = parseVllmCommand(launch.tokens, {
    baseDir: launch.baseDir,
    readFile: (p) => launch.files.get(resolve(p))?.text ?? readFileSync(p, 'utf8'),
    allowUnknown: opts.allowUnknownFlags ?? false,
    vllmVersion: versions.vllm?.value,
    ...(launch.extraFlags ? { extraFlags: launch.extraFlags } : {}),
  });
  if (!launch.role && parsed.args.get('is_prefill_worker')?.value === true) launch.role = 'prefill';
  else if (!launch.role && parsed.args.get('is_decode_worker')?.value === true) launch.role = 'decode';
  const args = new Map<string, Located<unknown>>();
  for (const [dest, v] of parsed.args) {
    const keyAt = v.keyAt && Object.fromEntries(Object.entries(v.keyAt).map(([k, at]) => [k, relocate(at) ?? at]));
    args.set(dest, { ...v, ...located(relocate(v.at)), ...(keyAt ? { keyAt } : {}) } as Located<unknown>);
  }
  const notes: Located<string>[] = [...launch.notes, ...notes0, ...parsed.notes.map((n) => ({ value: n.value, ...located(relocate(n.at)) }))];

  let model = parsed.model && { value: parsed.model.value, ...located(relocate(parsed.model.at)) };
  if (launch.modelHint && (!model || model.value === KSERVE_MOUNT || model.value.startsWith(`${KSERVE_MOUNT}/`))) {
    notes.push({ value: `${model?.value ?? 'the model'} is where KServe mounts ${launch.modelHint.value}; using that as the model`, at: launch.modelHint.at });
    model = launch.modelHint;
  }

  const d: Deployment = {
    source: launch.source,
    engine: 'vllm',
    ...located(relocate(parsed.at) ?? launch.tokens[0]?.at),
    argv: launch.tokens.map((t) => ({ text: t.text, ...located(relocate(t.at)) })),
    ...(model ? { model } : {}),
    args,
    env: launch.env,
    versions,
    notes,
    flagProblems: parsed.flagProblems.map((p) => ({ ...p, ...located(relocate(p.at)) })),
    flagTable: parsed.flagTable,
    ...(launch.role ? { role: launch.role } : {}),
  };
  const facts = modelFacts(launch, d, opts);
  if (facts) d.modelFacts = facts;
  else {
    const family = modelFamilyOf(d.model);
    if (family) d.modelFamily = family;
  }
  addHardwareFacts(d, launch, opts, notes);
  return d;
}

/** The GPU (or the GPUs it may be), and the platform the launch shows. */
export function addHardwareFacts(
  d: Deployment,
  launch: LaunchCommand,
  opts: AssembleOptions,
  notes: Located<string>[],
): void {
  const gpu = d.gpu ?? gpuOf(launch, opts, notes);
  if (gpu) d.gpu = gpu;
  else {
    const candidates = gpuCandidatesOf(launch);
    if (candidates.length > 1) d.gpuCandidates = candidates;
  }
  const platform = platformOf(d, launch.image);
  if (platform) d.platform = platform;
}

export function located(at: SourceLocation | undefined): { at?: SourceLocation } {
  return at ? { at } : {};
}

/** Maps the parser's locations (absolute paths, virtual heredoc files) to what the user wrote. */
export function relocator(launch: LaunchCommand, opts: AssembleOptions): (at: SourceLocation | undefined) => SourceLocation | undefined {
  return (at) => {
    if (!at) return at;
    const virtual = launch.files.get(at.file);
    if (virtual) return virtual.locate(at.line, at.column) ?? at;
    const shown = opts.displayPaths?.get(at.file);
    if (shown) return { ...at, file: shown };
    if (isAbsolute(at.file)) {
      const rel = relative(opts.cwd, at.file);
      if (!rel.startsWith('..') && !isAbsolute(rel)) return { ...at, file: rel };
    }
    return at;
  };
}

/** --model-config facts per options object: a directory of 1,000 manifests reads config.json once. */
const explicitFacts = new WeakMap<AssembleOptions, ModelFacts>();

export function modelFacts(launch: LaunchCommand, d: Deployment, opts: AssembleOptions) {
  if (opts.knownModelFacts) return opts.knownModelFacts;
  if (opts.modelConfig) {
    let facts = explicitFacts.get(opts);
    if (!facts) explicitFacts.set(opts, (facts = readModelFacts(resolve(opts.cwd, opts.modelConfig))));
    return facts;
  }
  const dir = localModelDir(launch, d.model?.value, opts);
  if (!dir) return undefined;
  try {
    const facts = readModelFacts(dir);
    d.notes.push({ value: `model facts read from the local model directory ${dir}`, at: d.model?.at });
    return facts;
  } catch (e) {
    // The user did not ask for this directory; a broken config.json in it is worth saying, not fatal.
    if (!isUserError(e)) throw e;
    d.notes.push({ value: `could not read model facts from ${dir}: ${e.message}`, at: d.model?.at });
    return undefined;
  }
}

/** The model argument as a directory on this machine that holds a config.json, if it is one. */
function localModelDir(launch: LaunchCommand, model: string | undefined, opts: AssembleOptions): string | undefined {
  if (!model || model.includes('$')) return undefined;
  let path = model;
  for (const m of launch.mounts) {
    const c = m.container.replace(/\/+$/, '');
    if (path === c || path.startsWith(`${c}/`)) {
      path = m.host + path.slice(c.length);
      break;
    }
  }
  if (path.startsWith('~/') && launch.source.kind === 'argv') path = join(homedir(), path.slice(2));
  const candidates = isAbsolute(path) ? [path] : [resolve(launch.baseDir, path), resolve(opts.cwd, path)];
  return candidates.find((p) => existsSync(join(p, 'config.json')) && statSync(p).isDirectory());
}

export function gpuOf(launch: LaunchCommand, opts: AssembleOptions, notes: Located<string>[]): Located<GpuFacts> | undefined {
  if (opts.gpu) return { value: parseGpu(opts.gpu) };
  const mapped: Located<GpuFacts>[] = [];
  for (const hint of launch.gpuHints) {
    try {
      mapped.push({ value: parseGpu(hint.value), ...located(hint.at) });
    } catch (e) {
      if (!isUserError(e)) throw e;
      notes.push({ value: `GPU label "${hint.value}" does not name a GPU faultline knows`, ...located(hint.at) });
    }
  }
  const sms = new Set(mapped.map((g) => g.value.sm));
  if (sms.size > 1) {
    notes.push({
      value: `the launch may run on GPUs of different architectures (${[...new Set(mapped.map((g) => `${g.value.name ?? '?'} sm${g.value.sm}`))].join(', ')}); a GPU-specific hazard is reported only when one of them is in its family; give --gpu to choose one`,
      ...located(mapped[0].at),
    });
    return undefined;
  }
  return mapped[0];
}

/** The GPUs the launch file names, one per architecture (what gpuOf leaves unknown when they differ). */
function gpuCandidatesOf(launch: LaunchCommand): Located<GpuFacts>[] {
  const bySm = new Map<number, Located<GpuFacts>>();
  for (const hint of launch.gpuHints) {
    try {
      const g = parseGpu(hint.value);
      if (!bySm.has(g.sm)) bySm.set(g.sm, { value: g, ...located(hint.at) });
    } catch (e) {
      if (!isUserError(e)) throw e;
    }
  }
  return [...bySm.values()];
}

function versionsOf(
  launch: LaunchCommand,
  opts: AssembleOptions,
  notes: Located<string>[],
): Deployment['versions'] {
  const versions: Deployment['versions'] = {};
  if (opts.vllmVersion) versions.vllm = { value: checkedVersion(opts.vllmVersion, '--vllm-version') };
  else {
    const tag = launch.image && OFFICIAL_IMAGE.exec(launch.image.value)?.[1];
    if (tag && parseVersion(tag) && launch.image) {
      versions.vllm = { value: tag, ...located(launch.image.at) };
      notes.push({ value: `vLLM version ${tag} taken from the image tag ${launch.image.value}`, ...located(launch.image.at) });
    }
  }
  if (opts.flashinferVersion) versions.flashinfer = { value: checkedVersion(opts.flashinferVersion, '--flashinfer-version') };
  return versions;
}

export function checkedVersion(text: string, option: string): string {
  if (parseVersion(text)) return text.trim();
  throw new UserError(`${option} "${text}" is not a version`, {
    code: 'E_USAGE',
    hint: `give it as pip shows it, e.g. ${option} 0.23.1 or ${option} 0.23.1rc1.dev843+g04adc8843`,
  });
}

/**
 * KServe → launches. Objects are collected across all files first, because an InferenceService
 * names its runtime (`runtime: kserve-vllmserver`) and the two often live in separate files.
 * - ServingRuntime / ClusterServingRuntime: containers as in Kubernetes; used on its own when no
 *   InferenceService in the set uses it (`{{.Name}}` then stays as written).
 * - InferenceService: the runtime's container merged with spec.predictor.model the way KServe's
 *   MergeRuntimeContainers does (command replaced when given; args concatenated, runtime first;
 *   env merged by name), `{{.Name}}`/`{{.Namespace}}` filled from the InferenceService metadata,
 *   and storageUri as the model behind `/mnt/models`. A runtime not in the set but named
 *   `kserve-vllmserver` (or model format vLLM) uses KServe's stock runtime from
 *   config/runtimes/kserve-vllmserver.yaml (research/configs-and-cli.md §4.2).
 * - LLMInferenceService: `vllm serve /mnt/models` as its base config runs it, plus
 *   `--tensor-parallel-size` from spec.parallelism.tensor, VLLM_ADDITIONAL_ARGS and container args.
 * Everywhere, a VLLM_ADDITIONAL_ARGS env value is split and appended unless the command uses it itself.
 */
import type { Node } from 'yaml';
import type { Located } from '../../core/located.js';
import { synthesized, type ArgField } from './arg-field.js';
import { launchesFromContainer, type ContainerSpec, type EnvEntry } from './container.js';
import { kubernetesContainer, podGpuHints } from './kubernetes.js';
import type { LaunchCommand } from './launch-command.js';
import { splitWords } from './split-words.js';
import { locOf, mapGet, mapPath, scalarField, scalarFields, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

export const KSERVE_KINDS = new Set(['ServingRuntime', 'ClusterServingRuntime', 'InferenceService', 'LLMInferenceService']);

export interface KserveObject {
  y: YamlFile;
  node: Node;
  kind: string;
  baseDir: string;
}

const MOUNT = '/mnt/models';

export function launchesFromKserve(objects: KserveObject[]): LaunchCommand[] {
  const runtimes = new Map<string, KserveObject>();
  for (const o of objects) if (o.kind.endsWith('ServingRuntime')) runtimes.set(scalarText(o.y, mapPath(o.node, 'metadata', 'name')) ?? '', o);
  const used = new Set<KserveObject>();
  const out: LaunchCommand[] = [];
  for (const o of objects) {
    if (o.kind === 'InferenceService') out.push(...inferenceService(o, runtimes, used));
    if (o.kind === 'LLMInferenceService') out.push(...llmInferenceService(o));
  }
  for (const o of objects) if (o.kind.endsWith('ServingRuntime') && !used.has(o)) out.push(...runtimeAlone(o));
  return out;
}

function objectName(o: KserveObject): string {
  return `${o.kind}/${scalarText(o.y, mapPath(o.node, 'metadata', 'name')) ?? '?'}`;
}

function runtimeAlone(o: KserveObject): LaunchCommand[] {
  const spec = mapGet(o.node, 'spec');
  return seqItems(mapGet(spec, 'containers')).flatMap((c) => {
    const container = kubernetesContainer(o.y, c, o.baseDir, `${objectName(o)} container ${scalarText(o.y, mapGet(c, 'name')) ?? '?'}`);
    return launchesFromContainer(withAdditionalArgs({ ...container, source: { ...container.source, kind: 'kserve' }, gpuHints: podGpuHints(o.y, spec as Node) }));
  });
}

function inferenceService(o: KserveObject, runtimes: Map<string, KserveObject>, used: Set<KserveObject>): LaunchCommand[] {
  const { y } = o;
  const predictor = mapPath(o.node, 'spec', 'predictor');
  const model = mapGet(predictor, 'model');
  const name = scalarText(y, mapPath(o.node, 'metadata', 'name')) ?? '';
  const namespace = scalarText(y, mapPath(o.node, 'metadata', 'namespace'));
  const notes: Located<string>[] = [];
  const here = locOf(y, model ?? predictor ?? o.node);
  let launches: LaunchCommand[];
  if (!model) {
    // a custom predictor: plain containers
    launches = seqItems(mapGet(predictor, 'containers')).flatMap((c) => {
      const spec = kubernetesContainer(y, c, o.baseDir, `${objectName(o)} container ${scalarText(y, mapGet(c, 'name')) ?? '?'}`);
      return launchesFromContainer(withAdditionalArgs({ ...spec, source: { ...spec.source, kind: 'kserve' } }));
    });
  } else {
    const runtimeName = scalarText(y, mapGet(model, 'runtime'));
    const format = scalarText(y, mapPath(model, 'modelFormat', 'name'));
    const runtime = findRuntime(runtimes, runtimeName, format);
    const isvc = kubernetesContainer(y, model, o.baseDir, objectName(o));
    let base: ContainerSpec | undefined;
    if (runtime) {
      used.add(runtime);
      const c = seqItems(mapPath(runtime.node, 'spec', 'containers'))[0];
      if (c) base = kubernetesContainer(runtime.y, c, runtime.baseDir, objectName(o));
    } else if (runtimeName === 'kserve-vllmserver' || format?.toLowerCase() === 'vllm') {
      base = stockVllmRuntime(y, model, o.baseDir, objectName(o));
      notes.push({ value: `runtime ${runtimeName ?? '(by model format vLLM)'} is not among the given files; used KServe's stock kserve-vllmserver runtime`, at: here });
    } else if (runtimeName || format) {
      notes.push({ value: `runtime ${runtimeName ?? format} is not among the given files; only the InferenceService's own args are known`, at: here });
    }
    const merged = mergeContainers(base, isvc);
    const fill = (f: ArgField) => fillTemplate(f, name, namespace);
    launches = launchesFromContainer(
      withAdditionalArgs({
        ...merged,
        source: { file: y.file, kind: 'kserve', object: objectName(o) },
        command: merged.command?.map(fill),
        args: merged.args?.map(fill),
        gpuHints: podGpuHints(y, predictor as Node),
        notes,
      }),
    );
    const storage = mapGet(model, 'storageUri');
    const uri = scalarText(y, storage);
    for (const l of launches) if (uri) l.modelHint = { value: modelFromUri(uri), at: locOf(y, storage) ?? here };
  }
  return launches;
}

function findRuntime(runtimes: Map<string, KserveObject>, name: string | undefined, format: string | undefined): KserveObject | undefined {
  if (name) return runtimes.get(name);
  if (!format) return undefined;
  for (const r of runtimes.values())
    for (const f of seqItems(mapPath(r.node, 'spec', 'supportedModelFormats')))
      if (scalarText(r.y, mapGet(f, 'name'))?.toLowerCase() === format.toLowerCase() && scalarText(r.y, mapGet(f, 'autoSelect')) === 'true') return r;
  return undefined;
}

/** Runtime container with the InferenceService's overrides, as KServe merges them. */
function mergeContainers(base: ContainerSpec | undefined, isvc: ContainerSpec): ContainerSpec {
  if (!base) return isvc;
  const env = new Map<string, EnvEntry>();
  for (const e of [...base.env, ...isvc.env]) env.set(e.name, e);
  return {
    ...base,
    image: isvc.image ?? base.image,
    command: isvc.command ?? base.command,
    args: [...(base.args ?? []), ...(isvc.args ?? [])],
    env: [...env.values()],
  };
}

function stockVllmRuntime(y: YamlFile, model: Node, baseDir: string, object: string): ContainerSpec {
  const at = locOf(y, mapGet(model, 'runtime') ?? mapGet(model, 'modelFormat') ?? model);
  const words = (...t: string[]) => t.map((text) => synthesized(text, at));
  return {
    source: { file: y.file, kind: 'kserve', object },
    baseDir,
    command: words('python', '-m', 'vllm.entrypoints.openai.api_server'),
    args: words('--port=8080', '--served-model-name={{.Name}}', `--model=${MOUNT}`),
    env: [{ name: 'VLLM_WORKER_MULTIPROC_METHOD', value: at ? { value: 'spawn', at } : { value: 'spawn' }, at }],
    kubernetesVars: true,
    gpuHints: [],
    notes: [],
    unsetReason: "is not set in the container's env or the script",
  };
}

/** KServe fills Go-template placeholders in the runtime container from the InferenceService's metadata. */
function fillTemplate(f: ArgField, name: string, namespace: string | undefined): ArgField {
  if (!f.text.includes('{{')) return f;
  const text = f.text.replace(/\{\{\s*\.Name\s*\}\}/g, name).replace(/\{\{\s*\.Namespace\s*\}\}/g, namespace ?? '{{.Namespace}}');
  return { text, at: f.at };
}

/** hf://org/model → org/model; other URIs (s3://, pvc://, gs://) stay whole. */
function modelFromUri(uri: string): string {
  return uri.startsWith('hf://') ? uri.slice('hf://'.length) : uri;
}

/** Appends VLLM_ADDITIONAL_ARGS (shell-split) when the command does not expand it itself. */
function withAdditionalArgs(c: ContainerSpec): ContainerSpec {
  const entry = c.env.find((e) => e.name === 'VLLM_ADDITIONAL_ARGS');
  if (!entry?.field) return c;
  const words = [...(c.command ?? []), ...(c.args ?? [])];
  if (words.some((w) => w.text.includes('VLLM_ADDITIONAL_ARGS'))) return c;
  const notes = [...c.notes];
  return { ...c, appendArgs: splitWords(entry.field, 'is not known here', notes), notes };
}

/**
 * Every role of an LLMInferenceService: `spec.template` (the decode server when a prefill part
 * exists), `spec.worker` (multi-node workers), `spec.prefill.template` and `spec.prefill.worker`.
 */
function llmInferenceService(o: KserveObject): LaunchCommand[] {
  const spec = mapGet(o.node, 'spec');
  const prefill = mapGet(spec, 'prefill');
  const parts: [Node | undefined, string, string | undefined][] = [
    [spec as Node | undefined, 'template', prefill ? 'decode' : undefined],
    [spec as Node | undefined, 'worker', 'worker'],
    [prefill as Node | undefined, 'template', 'prefill'],
    [prefill as Node | undefined, 'worker', 'prefill-worker'],
  ];
  return parts.flatMap(([part, key, role]) => {
    if (!part || (key === 'worker' && !mapGet(part, key))) return [];
    if (key === 'template' && part !== spec && !mapGet(part, key)) return [];
    const launches = llmInferenceServicePart(o, part, key, role);
    for (const l of launches) if (role) l.role = role;
    return launches;
  });
}

function llmInferenceServicePart(o: KserveObject, part: Node, key: string, role: string | undefined): LaunchCommand[] {
  const { y } = o;
  const spec = mapGet(o.node, 'spec');
  const uriNode = mapPath(spec, 'model', 'uri');
  const here = locOf(y, mapGet(part, key) ?? uriNode ?? spec ?? o.node);
  const containers = seqItems(mapPath(part, key, 'containers'));
  const main = containers.find((c) => scalarText(y, mapGet(c, 'name')) === 'main') ?? containers[0];
  const object = `${objectName(o)}${role ? ` ${role}` : ''}`;
  const container = main ? kubernetesContainer(y, main, o.baseDir, `${object} container main`) : undefined;
  if (container?.command?.length) {
    const launches = launchesFromContainer(withAdditionalArgs({ ...container, source: { ...container.source, kind: 'kserve' } }));
    if (launches.length) return launches;
  }
  const words: ArgField[] = [synthesized('vllm', here), synthesized('serve', here), synthesized(MOUNT, here)];
  const servedName = mapPath(spec, 'model', 'name');
  const servedField = scalarField(y, servedName);
  if (servedField) words.push(synthesized('--served-model-name', locOf(y, servedName)), servedField);
  const tp = mapPath(part, 'parallelism', 'tensor') ?? mapPath(spec, 'parallelism', 'tensor');
  const tpField = scalarField(y, tp);
  if (tpField) words.push(synthesized('--tensor-parallel-size', locOf(y, tp)), tpField);
  const base: ContainerSpec = {
    source: { file: y.file, kind: 'kserve', object },
    baseDir: o.baseDir,
    image: container?.image,
    command: words,
    args: container?.args ? scalarFields(y, mapGet(main, 'args')) : [],
    env: container?.env ?? [],
    kubernetesVars: true,
    gpuHints: podGpuHints(y, mapGet(part, key) as Node),
    notes: [{ value: 'LLMInferenceService: base command `vllm serve /mnt/models` as in KServe\'s default LLMInferenceServiceConfig; other flags that config adds are not emulated', at: here }],
    unsetReason: "is not set in the container's env or the script",
  };
  const launches = launchesFromContainer(withAdditionalArgs(base));
  const uri = scalarText(y, uriNode);
  for (const l of launches) if (uri) l.modelHint = { value: modelFromUri(uri), at: here };
  return launches;
}

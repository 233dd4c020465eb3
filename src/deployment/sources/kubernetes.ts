/**
 * Kubernetes workloads → launches. Any object is searched for pod specs (a mapping with a
 * `containers` list): Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod, LeaderWorkerSet
 * (leader and worker templates), Knative/Argo/OpenShift templates and CRDs alike. Each container
 * goes through container.ts; the pod's GPU product labels (nodeSelector, required node affinity)
 * become GPU hints.
 */
import { isCollection, isMap, isScalar, isSeq, type Node } from 'yaml';
import type { Located } from '../../core/located.js';
import { launchesFromContainer, type ContainerSpec, type EnvEntry } from './container.js';
import type { LaunchCommand } from './launch-command.js';
import { locatedText, locOf, mapEntries, mapGet, mapPath, scalarField, scalarFields, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

/** Node labels whose value names the GPU model. */
export const GPU_LABELS = new Set([
  'nvidia.com/gpu.product',
  'cloud.google.com/gke-accelerator',
  'karpenter.k8s.aws/instance-gpu-name',
]);

export function launchesFromKubernetesObject(y: YamlFile, obj: Node, baseDir: string): LaunchCommand[] {
  const kind = scalarText(y, mapGet(obj, 'kind')) ?? 'object';
  const name = scalarText(y, mapPath(obj, 'metadata', 'name')) ?? '';
  const out: LaunchCommand[] = [];
  visit(obj, []);
  return out;

  function visit(node: unknown, path: string[]): void {
    if (isMap(node)) {
      const containers = mapGet(node, 'containers');
      if (isMap(containers) && isAppTemplateContainers(y, containers)) {
        out.push(...appTemplateLaunches(y, node as Node, `${kind}/${name}${path.length ? ' ' + path.join('.') : ''}`, baseDir));
      } else if (isSeq(containers)) {
        const launches = podSpecLaunches(y, node as Node, `${kind}/${name}${path.length ? ' ' + path.join('.') : ''}`, baseDir);
        const role = roleOf(path);
        if (role) for (const l of launches) l.role ??= role;
        out.push(...launches);
      }
      // only collections can hold a pod spec: a scalar (an args list's words) is not walked into
      for (const e of mapEntries(node))
        if (e.key !== 'containers' && e.key !== 'initContainers' && isCollection(e.value)) visit(e.value, [...path, e.key]);
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        if (isCollection(item)) visit(item, [...path.slice(0, -1), `${path[path.length - 1] ?? ''}[${i}]`]);
      });
    }
  }
}

/** The role a pod template plays, from where it sits: LWS leader/worker, prefill/decode templates. */
export function roleOf(path: string[]): string | undefined {
  const p = path.join('.').toLowerCase();
  const prefill = /prefill/.test(p);
  if (prefill && /worker/.test(p)) return 'prefill-worker';
  if (prefill) return 'prefill';
  if (/decode/.test(p)) return 'decode';
  if (/leader/.test(p)) return 'leader';
  if (/worker/.test(p)) return 'worker';
  return undefined;
}

export function podSpecLaunches(y: YamlFile, pod: Node, objectName: string, baseDir: string, extra?: Partial<ContainerSpec>): LaunchCommand[] {
  const gpuHints = podGpuHints(y, pod);
  return seqItems(mapGet(pod, 'containers')).flatMap((c) => {
    const cname = scalarText(y, mapGet(c, 'name'));
    return launchesFromContainer({
      ...kubernetesContainer(y, c, baseDir, `${objectName} container ${cname ?? '?'}`),
      gpuHints,
      ...extra,
    });
  });
}

/** The parts of a container spec that the launch depends on. */
export function kubernetesContainer(y: YamlFile, c: Node, baseDir: string, object: string): ContainerSpec {
  const command = mapGet(c, 'command');
  const args = mapGet(c, 'args');
  const hook = mapPath(c, 'lifecycle', 'postStart', 'exec', 'command');
  return {
    source: { file: y.file, kind: 'kubernetes', object },
    baseDir,
    image: scalarField(y, mapGet(c, 'image')),
    command: command && !isNull(command) ? scalarFields(y, command) : undefined,
    args: args && !isNull(args) ? scalarFields(y, args) : undefined,
    env: kubernetesEnv(y, mapGet(c, 'env')),
    kubernetesVars: true,
    gpuHints: [],
    notes: [],
    ...(hook ? { hooks: [scalarFields(y, hook)] } : {}),
    unsetReason: "is not set in the container's env or the script",
  };
}

/**
 * bjw-s app-template values (`controllers.<c>.containers.<name>`, often inside a Flux HelmRelease's
 * `spec.values`): containers keyed by name, `image: {repository, tag}`, `env` as a map (NAME: value,
 * or NAME: {value | valueFrom}) or a Kubernetes list.
 */
function isAppTemplateContainers(y: YamlFile, containers: Node | undefined): boolean {
  const entries = mapEntries(containers);
  return entries.length > 0 && entries.every((e) => isMap(e.value)) && entries.some((e) => isMap(mapGet(e.value, 'image')) && scalarText(y, mapPath(e.value, 'image', 'repository')) !== undefined);
}

function appTemplateLaunches(y: YamlFile, controller: Node, objectName: string, baseDir: string): LaunchCommand[] {
  const pod = mapGet(controller, 'pod');
  const gpuHints = pod ? podGpuHints(y, pod) : [];
  return mapEntries(mapGet(controller, 'containers')).flatMap((e) => {
    const c = e.value as Node;
    const repo = mapPath(c, 'image', 'repository');
    const repository = scalarText(y, repo);
    if (!repository) return [];
    const tag = scalarText(y, mapPath(c, 'image', 'tag'));
    const image = { text: tag ? `${repository}:${tag}` : repository, ...(locOf(y, repo) ? { at: locOf(y, repo) } : {}) };
    const base = kubernetesContainer(y, c, baseDir, `${objectName} container ${e.key}`);
    const envNode = mapGet(c, 'env');
    return launchesFromContainer({ ...base, image, env: isMap(envNode) ? appTemplateEnv(y, envNode) : base.env, gpuHints });
  });
}

function appTemplateEnv(y: YamlFile, env: Node): EnvEntry[] {
  return mapEntries(env).flatMap((e): EnvEntry[] => {
    const at = locOf(y, e.keyNode);
    if (isMap(e.value)) {
      const from = mapGet(e.value, 'valueFrom');
      if (from) return [{ name: e.key, from: describeValueFrom(y, from), at }];
      const v = mapGet(e.value, 'value');
      return [{ name: e.key, value: locatedText(y, v) ?? { value: '', ...(at ? { at } : {}) }, field: scalarField(y, v), at }];
    }
    const value = locatedText(y, e.value);
    return [{ name: e.key, value: value ?? { value: '', ...(at ? { at } : {}) }, field: scalarField(y, e.value), at }];
  });
}

function isNull(n: Node): boolean {
  return isScalar(n) && (n.value === null || n.value === undefined);
}

export function kubernetesEnv(y: YamlFile, env: unknown): EnvEntry[] {
  return seqItems(env).flatMap((e): EnvEntry[] => {
    const name = scalarText(y, mapGet(e, 'name'));
    if (!name) return [];
    const valueNode = mapGet(e, 'value');
    const from = mapGet(e, 'valueFrom');
    if (from) return [{ name, from: describeValueFrom(y, from), at: locOf(y, e) }];
    // `value: ''` and a missing value both mean the empty string
    return [{ name, value: locatedText(y, valueNode) ?? { value: '', at: locOf(y, e) }, field: scalarField(y, valueNode), at: locOf(y, e) }];
  });
}

function describeValueFrom(y: YamlFile, from: Node): string {
  const secret = mapGet(from, 'secretKeyRef');
  if (secret) return `secret ${scalarText(y, mapGet(secret, 'name')) ?? '?'}/${scalarText(y, mapGet(secret, 'key')) ?? '?'}`;
  const cm = mapGet(from, 'configMapKeyRef');
  if (cm) return `config map ${scalarText(y, mapGet(cm, 'name')) ?? '?'}/${scalarText(y, mapGet(cm, 'key')) ?? '?'}`;
  const field = mapPath(from, 'fieldRef', 'fieldPath');
  if (field) return `field ${scalarText(y, field)}`;
  return 'valueFrom';
}

/** nodeSelector labels and required node-affinity `In` terms that name a GPU model. */
export function podGpuHints(y: YamlFile, pod: Node): Located<string>[] {
  const hints: Located<string>[] = [];
  for (const e of mapEntries(mapGet(pod, 'nodeSelector'))) {
    const v = locatedText(y, e.value);
    if (GPU_LABELS.has(e.key) && v) hints.push(v);
  }
  const terms = mapPath(pod, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
  hints.push(...nodeSelectorTermHints(y, terms));
  return hints;
}

export function nodeSelectorTermHints(y: YamlFile, terms: unknown): Located<string>[] {
  const hints: Located<string>[] = [];
  for (const term of seqItems(terms))
    for (const expr of seqItems(mapGet(term, 'matchExpressions'))) {
      const key = scalarText(y, mapGet(expr, 'key'));
      const op = scalarText(y, mapGet(expr, 'operator'));
      if (!key || !GPU_LABELS.has(key) || op !== 'In') continue;
      for (const v of seqItems(mapGet(expr, 'values'))) {
        const value = locatedText(y, v);
        if (value) hints.push(value);
      }
    }
  return hints;
}

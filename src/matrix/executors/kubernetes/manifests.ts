/**
 * The Kubernetes objects of one cell: a Job whose single pod runs the server (restartPolicy
 * Never, backoffLimit 0: a cell is one launch, never a retried one), and a Service in front of
 * it. Every object carries the run's labels, which is how the run finds (and deletes) all it
 * made; a Kueue queue becomes the queue-name label, and the Job is created suspended so that
 * Kueue admits it when quota allows. The pod is ready when the plan's health path answers.
 */
import { stringify } from 'yaml';
import type { KubernetesExecutorData } from '../executor-schema.js';

export const RUN_LABEL = 'faultline-run';
export const CELL_LABEL = 'faultline-cell';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'faultline' } as const;
/** Kueue's LocalQueue label (kueue.sigs.k8s.io: "Run a Kubernetes Job"). */
export const KUEUE_QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';

export interface CellManifestInput {
  cellId: string;
  runTag: string;
  levels: Record<string, string>;
  argv: string[];
  env: Record<string, string>;
  gpus: number;
  health: string;
  kubernetes: KubernetesExecutorData;
}

/** Plain objects in the API's JSON shape (batch/v1 Job, v1 Service). */
export interface CellManifests {
  job: Record<string, unknown>;
  service: Record<string, unknown>;
}

/** A DNS-1035 label (Services need one): lower case, at most 63 characters, starting with a letter. */
export function objectName(runTag: string, cellId: string): string {
  const name = `fl-${runTag}-${cellId}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return name.slice(0, 63).replace(/-+$/, '');
}

/** {port} is the container port; {host} is every address of the pod (its network is its own). */
function fill(word: string, port: number): string {
  return word.replace(/\{port\}/g, String(port)).replace(/\{host\}/g, '0.0.0.0');
}

export function cellManifests(input: CellManifestInput): CellManifests {
  const k = input.kubernetes;
  const name = objectName(input.runTag, input.cellId);
  const labels = { ...MANAGED_BY, [RUN_LABEL]: input.runTag, [CELL_LABEL]: input.cellId.toLowerCase() };
  const gpu = { [k.gpu_resource]: String(input.gpus) };
  const annotations = { 'faultline/levels': JSON.stringify(input.levels) };
  const container = {
    name: 'server',
    image: k.image,
    command: input.argv.map((w) => fill(w, k.port)),
    env: Object.entries(input.env).map(([n, value]) => ({ name: n, value: fill(value, k.port) })),
    ports: [{ name: 'http', containerPort: k.port }],
    resources: { requests: { ...k.resources.requests, ...gpu }, limits: { ...k.resources.limits, ...gpu } },
    readinessProbe: { httpGet: { path: input.health, port: 'http' }, periodSeconds: 5, failureThreshold: 3 },
  };
  const podSpec = {
    restartPolicy: 'Never',
    containers: [container],
    ...(Object.keys(k.node_selector).length ? { nodeSelector: k.node_selector } : {}),
    ...(k.tolerations.length ? { tolerations: k.tolerations } : {}),
    ...(k.service_account ? { serviceAccountName: k.service_account } : {}),
    ...(k.image_pull_secrets.length
      ? { imagePullSecrets: k.image_pull_secrets.map((s) => ({ name: s })) }
      : {}),
  };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: k.namespace,
      labels: { ...labels, ...(k.queue ? { [KUEUE_QUEUE_LABEL]: k.queue } : {}) },
      annotations,
    },
    spec: {
      backoffLimit: 0,
      ...(k.active_deadline_s !== undefined ? { activeDeadlineSeconds: k.active_deadline_s } : {}),
      ...(k.queue ? { suspend: true } : {}),
      template: { metadata: { labels, annotations }, spec: podSpec },
    },
  };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: k.namespace, labels, annotations },
    spec: {
      selector: { [RUN_LABEL]: input.runTag, [CELL_LABEL]: input.cellId.toLowerCase() },
      ports: [{ name: 'http', port: k.port, targetPort: 'http' }],
    },
  };
  return { job, service };
}

/** Both objects as one YAML stream (the dry run's output; `kubectl apply -f` reads it). */
export function manifestsYaml(m: CellManifests): string {
  return `${stringify(m.job, { aliasDuplicateObjects: false })}---\n${stringify(m.service, { aliasDuplicateObjects: false })}`;
}

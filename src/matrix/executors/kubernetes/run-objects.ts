/**
 * Every Kubernetes object of a run, found by its label (faultline-run=<tag>) rather than by
 * name, so that objects the journal never heard of (created just before a crash) go too: what
 * the run's end deletes, and what `faultline matrix --cleanup RUN_DIR` deletes after a run that
 * could not (SIGKILL), with the namespaces and contexts its journal recorded.
 */
import * as k8s from '@kubernetes/client-node';
import { openJobs, type JobRecord } from '../job-record.js';
import { CELL_LABEL, RUN_LABEL } from './manifests.js';

/** Deletes the run's Jobs (their pods with them) and Services in one namespace; the Jobs it found. */
export async function deleteRunObjects(
  batch: k8s.BatchV1Api,
  core: k8s.CoreV1Api,
  namespace: string,
  tag: string,
): Promise<{ name: string; cell: string }[]> {
  const labelSelector = `${RUN_LABEL}=${tag}`;
  const jobs = await batch.listNamespacedJob({ namespace, labelSelector });
  await batch.deleteCollectionNamespacedJob({ namespace, labelSelector, propagationPolicy: 'Background' });
  const services = await core.listNamespacedService({ namespace, labelSelector });
  for (const s of services.items)
    if (s.metadata?.name)
      await core.deleteNamespacedService({ name: s.metadata.name, namespace }).catch((e: unknown) => {
        if ((e as { code?: number })?.code !== 404) throw e;
      });
  return jobs.items.flatMap((j) =>
    j.metadata?.name ? [{ name: j.metadata.name, cell: j.metadata.labels?.[CELL_LABEL] ?? '?' }] : [],
  );
}

export interface DeletedJob {
  job: string;
  cell: string;
  namespace: string;
  /** Whether the Job was still there when the cleanup began. */
  wasLive: boolean;
}

/**
 * `--cleanup` for a run that used Kubernetes: in each namespace (and kubeconfig context) its
 * journal names, deletes every object with the run's label and journals the open Jobs as ended.
 * `kubeConfigFor` gives the client its cluster (default: the kubeconfig, that context).
 */
export async function cleanUpKubernetesObjects(
  records: readonly { type: string }[],
  tag: string,
  record: (r: Omit<JobRecord, 'type' | 'executor' | 'at'>) => void,
  kubeConfigFor: (context: string | undefined) => k8s.KubeConfig = defaultKubeConfig,
): Promise<DeletedJob[]> {
  const jobs = records.filter(
    (r): r is JobRecord => r.type === 'job' && (r as JobRecord).executor === 'kubernetes',
  );
  const places = new Map<string, { namespace: string; context: string | undefined }>();
  for (const j of jobs)
    if (j.namespace)
      places.set(`${j.context ?? ''}/${j.namespace}`, { namespace: j.namespace, context: j.context });
  const open = openJobs(records, 'kubernetes');
  const deleted: DeletedJob[] = [];
  for (const { namespace, context } of places.values()) {
    const kc = kubeConfigFor(context);
    const found = await deleteRunObjects(
      kc.makeApiClient(k8s.BatchV1Api),
      kc.makeApiClient(k8s.CoreV1Api),
      namespace,
      tag,
    );
    for (const j of open.filter((o) => o.namespace === namespace && o.context === context)) {
      record({
        event: 'ended',
        job: j.job,
        cell: j.cell,
        state: 'deleted by cleanup',
        namespace,
        ...(context ? { context } : {}),
        by: 'cleanup',
      });
      deleted.push({ job: j.job, cell: j.cell, namespace, wasLive: found.some((f) => f.name === j.job) });
    }
    // a Job created just before a crash, never journaled
    for (const f of found.filter((x) => !open.some((o) => o.job === x.name)))
      deleted.push({ job: f.name, cell: f.cell, namespace, wasLive: true });
  }
  return deleted;
}

export function defaultKubeConfig(context: string | undefined): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromDefault();
  if (context) kc.setCurrentContext(context);
  return kc;
}

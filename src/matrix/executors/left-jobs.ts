/**
 * What `faultline matrix --cleanup RUN_DIR` does about a run's scheduler jobs, beside stopping
 * its local servers: cancels the Slurm jobs it left (slurm/slurm-leftovers.ts) and deletes its
 * Kubernetes objects (kubernetes/run-objects.ts), journaling each as ended by the cleanup. Only
 * the schedulers the journal names are asked (the Kubernetes client is loaded only then).
 */
import type { JobRecord } from './job-record.js';
import { runTag } from './slurm/slurm-executor.js';
import { createSlurmCommands, type SlurmCommands } from './slurm/slurm-commands.js';
import { cleanUpSlurmJobs, type CancelledJob } from './slurm/slurm-leftovers.js';
import type { DeletedJob } from './kubernetes/run-objects.js';
import type { KubeConfig } from '@kubernetes/client-node';

export interface SchedulerCleanup {
  slurm: CancelledJob[];
  kubernetes: DeletedJob[];
}

export interface SchedulerCleanupOptions {
  /** The environment of the Slurm commands (default: faultline's). */
  env?: NodeJS.ProcessEnv;
  /** Tests pass a fake Slurm or a fake API server's config. */
  slurm?: SlurmCommands;
  kubeConfigFor?: (context: string | undefined) => KubeConfig;
  /** How long cancelled Slurm jobs are waited for. */
  waitMs?: number;
}

const usedBy = (records: readonly { type: string }[], executor: JobRecord['executor']): boolean =>
  records.some((r) => r.type === 'job' && (r as JobRecord).executor === executor);

export async function cleanUpSchedulerJobs(
  records: readonly { type: string }[],
  runDir: string,
  append: (record: JobRecord) => void,
  options: SchedulerCleanupOptions = {},
): Promise<SchedulerCleanup> {
  const tag = runTag(runDir);
  const recordFor =
    (executor: JobRecord['executor']) =>
    (r: Omit<JobRecord, 'type' | 'executor' | 'at'>): void =>
      append({ type: 'job', executor, ...r, at: new Date().toISOString() });
  const slurm = usedBy(records, 'slurm')
    ? await cleanUpSlurmJobs(
        records,
        tag,
        options.slurm ?? createSlurmCommands({ env: options.env ?? process.env }),
        recordFor('slurm'),
        options.waitMs ?? 120_000,
      )
    : [];
  let kubernetes: DeletedJob[] = [];
  if (usedBy(records, 'kubernetes')) {
    const { cleanUpKubernetesObjects } = await import('./kubernetes/run-objects.js');
    kubernetes = await cleanUpKubernetesObjects(records, tag, recordFor('kubernetes'), options.kubeConfigFor);
  }
  return { slurm, kubernetes };
}

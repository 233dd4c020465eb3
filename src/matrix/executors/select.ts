/**
 * The plan's `executor:` turned into an Executor for the run: the local one (packing GPUs when
 * the plan lists them), a Slurm one, or a Kubernetes one (its client is loaded only then).
 */
import type { Executor } from '../executor.js';
import type { JournalRecord } from '../journal.js';
import type { MatrixPlan } from '../plan-compile.js';
import { withGpuPacking } from './gpu-packing.js';
import { GpuPool } from './gpu-pool.js';
import type { JobRecord } from './job-record.js';
import { createSlurmCommands } from './slurm/slurm-commands.js';
import { createSlurmExecutor } from './slurm/slurm-executor.js';

export interface RunContext {
  runDir: string;
  /** The servers' working directory (launch.cwd resolved). */
  cwd: string;
  /** Appends to the run journal. */
  record: (record: JobRecord) => void;
  /** Records of the run being resumed. */
  resumed: readonly JournalRecord[];
  /** Cells at once (the plan's parallel, or --parallel). */
  slots: number;
  /** The environment of the scheduler's commands (sbatch, squeue, …). */
  env: NodeJS.ProcessEnv;
}

/** `local` is the local process executor the CLI built for this run; the other kinds do not use it. */
export async function executorForPlan(
  plan: MatrixPlan,
  local: Executor,
  context: RunContext,
): Promise<Executor> {
  const e = plan.executor;
  const common = {
    runDir: context.runDir,
    health: plan.launch.health,
    readyTimeoutMs: plan.launch.readyTimeoutMs,
    stopTimeoutMs: plan.launch.stopTimeoutMs,
  };
  if (e.kind === 'slurm')
    return createSlurmExecutor({
      ...common,
      slurm: { ...e, parallel: context.slots },
      cwd: context.cwd,
      record: context.record,
      previous: context.resumed,
      commands: createSlurmCommands({ env: context.env }),
    });
  if (e.kind === 'kubernetes') {
    const { createKubernetesExecutor } = await import('./kubernetes/kubernetes-executor.js');
    return createKubernetesExecutor({
      ...common,
      kubernetes: { ...e, parallel: context.slots },
      record: context.record,
      previous: context.resumed,
    });
  }
  if (!e.gpus) return local;
  const reserved = new Set(plan.reference.kind === 'launch' ? (plan.reference.gpus ?? '').split(',') : []);
  return withGpuPacking(local, new GpuPool(e.gpus.filter((id) => !reserved.has(id))));
}

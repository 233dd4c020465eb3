/**
 * What a scheduler-backed executor (Slurm, Kubernetes) writes into the run journal about each
 * job of a cell: when it was submitted (and for which levels, so a resumed run can re-attach to
 * it), when the scheduler started it, and how it ended. The run's concurrency is read from these
 * (the scheduler's own start and end times), and `--resume` finds the jobs still running.
 */
export interface JobRecord {
  type: 'job';
  executor: 'slurm' | 'kubernetes';
  event: 'submitted' | 'adopted' | 'running' | 'ended';
  /** Slurm job id, or the Kubernetes Job's name. */
  job: string;
  /** The cell the job serves (a re-attached job keeps the directory of the cell that submitted it). */
  cell: string;
  /** submitted / adopted: the cell's levels, which a resumed run matches jobs by. */
  levels?: Record<string, string>;
  /** submitted: the cell's directory (its script, logs and endpoint file). */
  cellDir?: string;
  /** The scheduler's word for the job's state (RUNNING, NODE_FAIL, Failed, …). */
  state?: string;
  node?: string;
  /** running: when the scheduler started the job; ended: when it ended (ISO, the scheduler's clock). */
  schedulerTime?: string;
  /** Kubernetes: where the job's objects live, so `--cleanup` can find them without the plan. */
  namespace?: string;
  context?: string;
  /** ended: who ended it, when not the run itself (a resumed run, or `--cleanup`). */
  by?: 'resume' | 'cleanup';
  at: string;
}

/** Jobs whose last record is not `ended`: what may still run after faultline was killed. */
export function openJobs(records: readonly { type: string }[], executor: JobRecord['executor']): JobRecord[] {
  const open = new Map<string, JobRecord>();
  for (const r of records) {
    if (r.type !== 'job') continue;
    const job = r as JobRecord;
    if (job.executor !== executor) continue;
    if (job.event === 'ended') open.delete(job.job);
    else if (job.event === 'submitted' || job.event === 'adopted') open.set(job.job, job);
  }
  return [...open.values()];
}

/**
 * Jobs of an interrupted run that a resumed run re-attaches to instead of submitting anew,
 * matched by the cell's levels (cell ids of unfinished cells are not kept across a resume).
 */
export class ReattachableJobs<J extends { cellDir: string }> {
  private readonly byLevels = new Map<string, J>();

  add(levels: Record<string, string>, job: J): void {
    this.byLevels.set(JSON.stringify(levels), job);
  }

  /** The job left for these levels, once; journaled as re-attached to by `cellId`. */
  take(
    levels: Record<string, string>,
    cellId: string,
    jobName: (job: J) => string,
    record: (r: Omit<JobRecord, 'type' | 'executor' | 'at'>) => void,
  ): J | undefined {
    const key = JSON.stringify(levels);
    const job = this.byLevels.get(key);
    if (!job) return undefined;
    this.byLevels.delete(key);
    record({ event: 'adopted', job: jobName(job), cell: cellId, levels, cellDir: job.cellDir });
    return job;
  }

  /** What nothing re-attached to (the run cancels these when it ends). */
  drain(): J[] {
    const left = [...this.byLevels.values()];
    this.byLevels.clear();
    return left;
  }
}

/**
 * One squeue for every job of the run, at most once per poll interval, however many cells wait:
 * a sweep of hundreds of cells must not hammer the controller (HELM polls its worker jobs the
 * same way). A job squeue has forgotten is looked up once in accounting (sacct), where there is any.
 */
import { SlurmUnavailable, type SlurmCommands, type SlurmJobState } from './slurm-commands.js';

export class SlurmPoller {
  private readonly watched = new Set<string>();
  private readonly known = new Map<string, SlurmJobState>();
  private readonly accounted = new Map<string, SlurmJobState | undefined>();
  private refreshing: { ids: Set<string>; done: Promise<void> } | undefined;
  private refreshedAt = 0;
  /** When squeue last answered (ms since epoch), and what it said when it did not. */
  lastAnswerAt = Date.now();
  lastError: string | undefined;

  constructor(
    private readonly commands: SlurmCommands,
    private readonly intervalMs: number,
  ) {}

  watch(id: string): void {
    this.watched.add(id);
  }

  unwatch(id: string): void {
    this.watched.delete(id);
    this.known.delete(id);
    this.accounted.delete(id);
  }

  /**
   * The job's state as of the last squeue (run again when older than the interval, or at once
   * with `fresh`); undefined when neither squeue nor accounting knows it. Throws
   * SlurmUnavailable while the controller does not answer.
   */
  async state(id: string, fresh = false): Promise<SlurmJobState | undefined> {
    this.watch(id);
    if (fresh || Date.now() - this.refreshedAt >= this.intervalMs || !this.known.has(id))
      await this.refresh(id);
    const queued = this.known.get(id);
    if (queued) return queued;
    if (!this.accounted.has(id)) this.accounted.set(id, await this.commands.accounting(id));
    return this.accounted.get(id);
  }

  /** One squeue for every watched job; a call already under way serves only if it asked about `id`. */
  private async refresh(id: string): Promise<void> {
    const under = this.refreshing;
    if (under) {
      await under.done.catch(() => {});
      if (under.ids.has(id)) {
        if (this.lastError !== undefined) throw new SlurmUnavailable(this.lastError);
        return;
      }
      if (this.refreshing) return this.refresh(id);
    }
    const ids = new Set(this.watched);
    const done = (async () => {
      try {
        const states = await this.commands.query([...ids]);
        this.known.clear();
        for (const [job, state] of states) this.known.set(job, state);
        this.lastAnswerAt = Date.now();
        this.lastError = undefined;
      } catch (e) {
        if (!(e instanceof SlurmUnavailable)) throw e;
        this.lastError = e.message;
        throw e;
      } finally {
        this.refreshedAt = Date.now();
        this.refreshing = undefined;
      }
    })();
    this.refreshing = { ids, done };
    return done;
  }
}

/**
 * An in-memory Slurm for the Slurm executor's unit tests (written for faultline): each submitted
 * job walks through scripted phases (state, how long), and a RUNNING phase can write the
 * endpoint file the real batch script writes, pointing at a server the test runs. The test can
 * also set a job's state at any time (an outside scancel, a node failure), or make the
 * controller stop answering. The real cluster is tested in test/e2e/slurm-*.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  SlurmUnavailable,
  type SlurmCommands,
  type SlurmJobState,
} from '../../src/matrix/executors/slurm/slurm-commands.js';
import { endpointFile } from '../../src/matrix/executors/slurm/sbatch-script.js';
import { isTerminal } from '../../src/matrix/executors/slurm/slurm-states.js';

export interface Phase {
  state: string;
  reason?: string;
  /** How long the phase lasts (the last one lasts for ever). */
  ms?: number;
  /** On entering RUNNING: write the endpoint file for this port (the test's server). */
  port?: number;
}

interface FakeJob {
  id: string;
  script: string;
  phases: Phase[];
  enteredAt: number;
  forced?: SlurmJobState;
  wroteEndpoint: boolean;
}

export interface FakeSlurm extends SlurmCommands {
  jobs: Map<string, FakeJob>;
  submitted: string[];
  cancelled: string[];
  queries: number;
  /** Job names (the script's --job-name), by id. */
  names: Map<string, string>;
  /** Sets a job's state from now on (as scancel or a node failure would). */
  force(id: string, state: string, reason?: string): void;
  /** While true, squeue fails as with a controller down. */
  down: boolean;
  /** Makes sbatch refuse with this message. */
  refuse?: string;
  /** Known to sacct after squeue forgot them. */
  accountingOf?: (id: string) => SlurmJobState | undefined;
}

export function createFakeSlurm(phasesFor: (n: number, script: string) => Phase[]): FakeSlurm {
  let next = 100;
  const now = () => Date.now();
  const current = (job: FakeJob): SlurmJobState => {
    if (job.forced) return job.forced;
    let t = now() - job.enteredAt;
    for (const [i, p] of job.phases.entries()) {
      const last = i === job.phases.length - 1;
      if (last || t < (p.ms ?? 0)) {
        if (p.state === 'RUNNING' && p.port !== undefined && !job.wroteEndpoint) {
          job.wroteEndpoint = true;
          writeFileSync(
            join(dirname(job.script), endpointFile(job.id)),
            JSON.stringify({ job: job.id, node: 'fake1', host: '127.0.0.1', port: p.port }),
          );
        }
        return {
          id: job.id,
          state: p.state,
          reason: p.reason ?? '',
          node: p.state === 'PENDING' ? '' : 'fake1',
          start: '2026-12-01T10:00:00',
          ...(isTerminal(p.state) ? { end: '2026-12-01T10:05:00' } : {}),
        };
      }
      t -= p.ms ?? 0;
    }
    throw new Error('unreachable');
  };
  const fake: FakeSlurm = {
    jobs: new Map(),
    submitted: [],
    cancelled: [],
    queries: 0,
    names: new Map(),
    down: false,
    force(id, state, reason = '') {
      const job = fake.jobs.get(id)!;
      job.forced = { id, state, reason, node: 'fake1', end: '2026-12-01T10:06:00' };
    },
    async submit(script) {
      if (fake.refuse) throw new Error(`sbatch: error: ${fake.refuse}`);
      const id = String(next++);
      fake.jobs.set(id, {
        id,
        script,
        phases: phasesFor(fake.submitted.length, script),
        enteredAt: now(),
        wroteEndpoint: false,
      });
      fake.submitted.push(id);
      const name = /--job-name=([^\s"]+)/.exec(readFileSync(script, 'utf8'))?.[1];
      if (name) fake.names.set(id, name);
      return id;
    },
    async query(ids) {
      fake.queries++;
      if (fake.down)
        throw new SlurmUnavailable('squeue: error: Unable to contact slurm controller (connect failure)');
      const out = new Map<string, SlurmJobState>();
      for (const id of ids) {
        const job = fake.jobs.get(id);
        if (job) out.set(id, current(job));
      }
      return out;
    },
    async accounting(id) {
      return fake.accountingOf?.(id);
    },
    async describe(id) {
      const job = fake.jobs.get(id);
      return job ? `JobState=${current(job).state} ExitCode=1:0` : undefined;
    },
    async namedJobs(prefix) {
      if (fake.down)
        throw new SlurmUnavailable('squeue: error: Unable to contact slurm controller (connect failure)');
      return [...fake.jobs.values()]
        .filter((job) => !isTerminal(current(job).state))
        .map((job) => ({ id: job.id, name: fake.names.get(job.id) ?? '' }))
        .filter((job) => job.name.startsWith(prefix));
    },
    async cancel(ids) {
      for (const id of ids) {
        fake.cancelled.push(id);
        const job = fake.jobs.get(id);
        if (job && !isTerminal(current(job).state)) fake.force(id, 'CANCELLED');
      }
    },
    cancelNow(ids) {
      void fake.cancel(ids);
    },
  };
  return fake;
}

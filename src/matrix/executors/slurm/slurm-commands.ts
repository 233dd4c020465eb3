/**
 * The Slurm commands as a user runs them (sbatch, squeue, sacct, scontrol, scancel), each with an
 * argv array and a time limit. squeue --states=all knows a job until MinJobAge after it ended;
 * sacct knows it for longer where the cluster keeps accounting (without slurmdbd it says so and
 * gives nothing — then a job squeue has forgotten has an unknown end, never a good one).
 */
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';

export interface SlurmJobState {
  id: string;
  /** squeue %T / sacct State: PENDING, RUNNING, COMPLETED, NODE_FAIL, … */
  state: string;
  /** Why it waits or ended (squeue %r), e.g. Resources, BeginTime, NodeDown. */
  reason: string;
  node: string;
  /** The scheduler's start and end times (ISO without zone, the controller's clock), when known. */
  start?: string;
  end?: string;
}

/** The controller did not answer (or a command is missing): no news, not a state. */
export class SlurmUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlurmUnavailable';
  }
}

export interface SlurmCommands {
  /** sbatch --parsable SCRIPT → the job id. Throws with sbatch's message when it refuses. */
  submit(scriptPath: string): Promise<string>;
  /** The jobs squeue knows (ended ones too, for a while); unknown ids are absent. */
  query(ids: readonly string[]): Promise<Map<string, SlurmJobState>>;
  /** The accounting record of a job squeue no longer knows; undefined without accounting. */
  accounting(id: string): Promise<SlurmJobState | undefined>;
  /** scontrol show job's ExitCode, Reason and the like, for the cell's detail. */
  describe(id: string): Promise<string | undefined>;
  /** Jobs squeue lists as queued or running whose name starts with `prefix` (a run's fl-<tag>-). */
  namedJobs(prefix: string): Promise<{ id: string; name: string }[]>;
  cancel(ids: readonly string[]): Promise<void>;
  /** scancel, synchronously: for process exit, when nothing asynchronous runs any more. */
  cancelNow(ids: readonly string[]): void;
}

const TIMEOUT_MS = 30_000;
const UNSET = new Set(['', 'N/A', 'Unknown', 'None', '(null)']);
const optional = (text: string | undefined): string | undefined =>
  text === undefined || UNSET.has(text) ? undefined : text;

/** squeue's and sacct's output: one job per line, fields split by | (the reason last: it may hold anything). */
export function parseStateLines(text: string): SlurmJobState[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [id, state, node, start, end, ...reason] = line.split('|');
      const job: SlurmJobState = {
        id,
        state: state ?? '',
        node: optional(node) ?? '',
        reason: optional(reason.join('|')) ?? '',
      };
      const s = optional(start);
      const e = optional(end);
      return { ...job, ...(s ? { start: s } : {}), ...(e ? { end: e } : {}) };
    });
}

export function createSlurmCommands(options: { env?: NodeJS.ProcessEnv } = {}): SlurmCommands {
  const env = options.env ?? process.env;
  const run = (file: string, args: string[]) =>
    execa(file, args, { env, extendEnv: false, reject: false, timeout: TIMEOUT_MS, stdin: 'ignore' });
  const failure = (file: string, r: { stderr?: unknown; shortMessage?: string; exitCode?: number }): string =>
    `${file}: ${String(r.stderr ?? '').trim() || r.shortMessage || `exit status ${r.exitCode}`}`;
  return {
    async submit(scriptPath) {
      const r = await run('sbatch', ['--parsable', scriptPath]);
      if (r.exitCode !== 0) throw new Error(failure('sbatch', r));
      const id = String(r.stdout).trim().split(';')[0];
      if (!/^\d+(_\d+)?$/.test(id))
        throw new Error(`sbatch printed no job id: ${JSON.stringify(String(r.stdout).slice(0, 200))}`);
      return id;
    },
    async query(ids) {
      if (ids.length === 0) return new Map();
      const r = await run('squeue', [
        '--noheader',
        '--states=all',
        `--jobs=${ids.join(',')}`,
        '--format=%i|%T|%N|%S|%e|%r',
      ]);
      if (r.exitCode !== 0) {
        // one unknown id alone makes squeue fail; that is an answer (it knows none of them)
        if (/Invalid job id/i.test(String(r.stderr))) return new Map();
        throw new SlurmUnavailable(failure('squeue', r));
      }
      return new Map(parseStateLines(String(r.stdout)).map((s) => [s.id, s]));
    },
    async accounting(id) {
      const r = await run('sacct', [
        '--noheader',
        '--parsable2',
        '--allocations',
        `--jobs=${id}`,
        '--format=JobID,State,NodeList,Start,End',
      ]);
      if (r.exitCode !== 0) return undefined; // "Slurm accounting storage is disabled", or no slurmdbd
      return parseStateLines(String(r.stdout)).find((s) => s.id === id);
    },
    async describe(id) {
      const r = await run('scontrol', ['show', 'job', '--oneliner', id]);
      if (r.exitCode !== 0) return undefined;
      const fields = String(r.stdout).match(
        /\b(JobState|Reason|ExitCode|DerivedExitCode|RunTime|TimeLimit|NodeList)=\S*/g,
      );
      return fields?.join(' ');
    },
    async namedJobs(prefix) {
      // squeue's default states: pending, running, suspended, completing — what can still hold a node
      const r = await run('squeue', ['--noheader', '--format=%i|%j']);
      if (r.exitCode !== 0) throw new SlurmUnavailable(failure('squeue', r));
      return String(r.stdout)
        .split('\n')
        .map((l) => l.trim().split('|'))
        .filter(([id, name]) => id && name?.startsWith(prefix))
        .map(([id, name]) => ({ id, name }));
    },
    async cancel(ids) {
      if (ids.length === 0) return;
      const r = await run('scancel', [...ids]);
      if (r.exitCode !== 0 && !/Invalid job id|already completing or completed/i.test(String(r.stderr)))
        throw new SlurmUnavailable(failure('scancel', r));
    },
    cancelNow(ids) {
      if (ids.length) spawnSync('scancel', [...ids], { env, stdio: 'ignore', timeout: 10_000 });
    },
  };
}

/**
 * The batch script of one cell: sbatch options as #SBATCH lines, then a body that picks a free
 * port on the node, writes where the server listens to the cell directory (on the shared file
 * system, where faultline reads it), and execs the server — so that scancel's signals reach the
 * server itself. Every word of the server's argv and environment is single-quoted: nothing in
 * the plan is ever read by the shell as code. {port} and {host} become the node's values at run
 * time; {cell_dir}, {run_dir} and {faultline_root} are paths known when the script is written.
 */
import { UserError } from '../../../core/errors.js';
import type { SlurmExecutorData } from '../executor-schema.js';

export interface CellScriptInput {
  cellId: string;
  /** Names the run's jobs: fl-<tag>-<cell> (squeue --name finds them). */
  runTag: string;
  levels: Record<string, string>;
  argv: string[];
  env: Record<string, string>;
  cellDir: string;
  runDir: string;
  faultlineRoot: string;
  cwd?: string;
  gpus: number;
  slurm: SlurmExecutorData;
}

/** The file, in the cell directory, where the job says where its server listens. */
const ENDPOINT_PREFIX = 'endpoint-';
export const endpointFile = (jobId: string): string => `${ENDPOINT_PREFIX}${jobId}.json`;
export const SCRIPT_FILE = 'job.sbatch';

/** One word for a POSIX shell, taken literally: single quotes, and each ' written as '"'"'. */
export function shellQuote(word: string): string {
  if (word.includes('\0'))
    throw new UserError('an argument holds a NUL byte, which no process argument can carry', {
      code: 'E_PLAN',
    });
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

const RUNTIME = { port: '"$FL_PORT"', host: '"$FL_HOST"' } as const;

/** A word with placeholders: literal parts quoted, {port} and {host} as the script's variables. */
export function shellWord(
  word: string,
  paths: Record<'cell_dir' | 'run_dir' | 'faultline_root', string>,
): string {
  const literal = word.replace(
    /\{(cell_dir|run_dir|faultline_root)\}/g,
    (_, name: keyof typeof paths) => paths[name],
  );
  const out = literal
    .split(/(\{(?:port|host)\})/)
    .filter((p) => p !== '')
    .map((p) => (p === '{port}' ? RUNTIME.port : p === '{host}' ? RUNTIME.host : shellQuote(p)));
  return out.length ? out.join('') : "''";
}

/** An #SBATCH value: sbatch reads these lines itself, with double quotes around values with spaces. */
function sbatchValue(option: string, value: string): string {
  if (/["\n\r\0\\]/.test(value))
    throw new UserError(
      `the sbatch option ${option} cannot carry ${JSON.stringify(value)} (a quote, backslash or line break)`,
      {
        code: 'E_PLAN',
        hint: 'choose a run directory, partition or account name without quotes, backslashes or line breaks',
      },
    );
  return /\s/.test(value) ? `"${value}"` : value;
}

export function sbatchOptions(input: CellScriptInput): string[] {
  const s = input.slurm;
  const opts: [string, string | undefined][] = [
    ['--job-name', `fl-${input.runTag}-${input.cellId}`],
    ['--output', `${input.cellDir}/slurm-%j.out`],
    ['--error', `${input.cellDir}/slurm-%j.err`],
    ['--time', s.time],
    ['--partition', s.partition],
    ['--account', s.account],
    ['--nodes', '1'],
    ['--ntasks', '1'],
    ['--gres', s.gres_per_gpu === null ? undefined : `${s.gres_per_gpu}:${input.gpus}`],
    ['--chdir', input.cwd],
  ];
  const lines = opts
    .filter((o): o is [string, string] => o[1] !== undefined)
    .map(([o, v]) => `#SBATCH ${o}=${sbatchValue(o, v)}`);
  // a cell is one launch: a requeued job would serve a second, unasked launch under the same cell
  lines.push('#SBATCH --no-requeue');
  for (const extra of s.sbatch_args) {
    if (!extra.startsWith('-'))
      throw new UserError(`executor.sbatch_args: "${extra}" is not an option`, {
        code: 'E_PLAN',
        hint: 'one option per entry, e.g. --qos=high',
      });
    const eq = extra.indexOf('=');
    lines.push(
      eq < 0
        ? `#SBATCH ${sbatchValue(extra, extra)}`
        : `#SBATCH ${extra.slice(0, eq)}=${sbatchValue(extra, extra.slice(eq + 1))}`,
    );
  }
  return lines;
}

export function renderCellScript(input: CellScriptInput): string {
  const paths = { cell_dir: input.cellDir, run_dir: input.runDir, faultline_root: input.faultlineRoot };
  for (const key of Object.keys(input.env))
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      throw new UserError(
        `environment variable name ${JSON.stringify(key)} cannot be exported by a batch script`,
        { code: 'E_PLAN', hint: 'use letters, digits and underscores' },
      );
  const levels = Object.entries(input.levels)
    .map(([f, l]) => `${f}=${l}`)
    .join(' ');
  const endpoint = shellQuote(`${input.cellDir}/${ENDPOINT_PREFIX}`);
  const host = input.slurm.host !== undefined ? shellQuote(input.slurm.host) : '"$(hostname)"';
  return [
    '#!/bin/bash',
    `# faultline matrix cell ${input.cellId}: ${levels.replace(/[\r\n]/g, ' ')}`,
    ...sbatchOptions(input),
    'set -eu',
    `FL_HOST=${host}`,
    '# a free port on this node: ten per job id, skipping any that something already listens on',
    'FL_PORT=$(( 20000 + (SLURM_JOB_ID % 4000) * 10 ))',
    'while (exec 3<>"/dev/tcp/$FL_HOST/$FL_PORT") 2>/dev/null; do FL_PORT=$(( FL_PORT + 1 )); done',
    '# where the server listens, for faultline (written whole, then renamed into place)',
    `printf '{"job": "%s", "node": "%s", "host": "%s", "port": %s}\\n' "$SLURM_JOB_ID" "$(hostname)" "$FL_HOST" "$FL_PORT" > ${endpoint}"$SLURM_JOB_ID.json.tmp"`,
    `mv -f ${endpoint}"$SLURM_JOB_ID.json.tmp" ${endpoint}"$SLURM_JOB_ID.json"`,
    ...Object.entries(input.env).map(([k, v]) => `export ${k}=${shellWord(v, paths)}`),
    `exec ${input.argv.map((w) => shellWord(w, paths)).join(' ')}`,
    '',
  ].join('\n');
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import {
  renderCellScript,
  sbatchOptions,
  shellQuote,
  shellWord,
  type CellScriptInput,
} from './sbatch-script.js';

const paths = { cell_dir: '/runs/r1/cells/c001', run_dir: '/runs/r1', faultline_root: '/opt/faultline' };

/** What bash makes of the words: the argv a program started with them would get. */
function bashArgv(words: string, vars: Record<string, string> = {}): string[] {
  const r = spawnSync('bash', ['-c', `printf '%s\\0' ${words}`], {
    env: { PATH: process.env.PATH, ...vars },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

test('property: every word comes through bash exactly as written, whatever it holds ($(…), `…`, quotes, globs, newlines)', () => {
  // 300 generated argument lists through one bash (a process per case is slow on a loaded machine)
  const cases = fc.sample(
    fc.array(
      fc.string({ unit: 'binary' }).map((s) => s.replace(/\0/g, '')),
      { minLength: 1, maxLength: 6 },
    ),
    { numRuns: 300, seed: 17 },
  );
  const hostile = [
    '$(touch /tmp/pwned)',
    '`id`',
    "it's",
    '"; rm -rf / #',
    '*',
    '~',
    '$HOME',
    'a\nb',
    '\\',
    '{port}x',
    "'\"'\"'",
  ];
  cases.push(hostile);
  const END = '--end-of-case--';
  const r = spawnSync(
    'bash',
    ['-c', cases.map((words) => `printf '%s\\0' ${words.map(shellQuote).join(' ')} ${END}`).join('\n')],
    {
      env: { PATH: process.env.PATH },
      maxBuffer: 64 << 20,
    },
  );
  assert.equal(r.status, 0, String(r.stderr));
  const got = r.stdout
    .toString('utf8')
    .split(`${END}\0`)
    .slice(0, -1)
    .map((chunk) => chunk.split('\0').slice(0, -1));
  assert.equal(got.length, cases.length);
  cases.forEach((words, i) => assert.deepEqual(got[i], words, `case ${i}: ${JSON.stringify(words)}`));
});

test("{port} and {host} become the node's values at run time; paths are filled in when the script is written", () => {
  const words = [
    '--port',
    '{port}',
    '--url=http://{host}:{port}/v1',
    '{cell_dir}/log',
    "{faultline_root}/it's",
    '{unknown}',
  ].map((w) => shellWord(w, paths));
  assert.deepEqual(bashArgv(words.join(' '), { FL_PORT: '20070', FL_HOST: 'node7' }), [
    '--port',
    '20070',
    '--url=http://node7:20070/v1',
    '/runs/r1/cells/c001/log',
    "/opt/faultline/it's",
    '{unknown}',
  ]);
  assert.equal(shellWord('', paths), "''");
});

const input = (over: Partial<CellScriptInput> = {}): CellScriptInput => ({
  cellId: 'c003',
  runTag: 'ab12cd34',
  levels: { kv_cache: 'fp8', speculative: 'k7' },
  argv: [
    'vllm',
    'serve',
    'm',
    '--host',
    '{host}',
    '--port',
    '{port}',
    '--attention-config',
    '{"disable_flashinfer_q_quantization": true}',
  ],
  env: { HF_HOME: '/cache/hf', QUOTE: "a'b" },
  cellDir: '/runs/r1/cells/c003',
  runDir: '/runs/r1',
  faultlineRoot: '/opt/faultline',
  cwd: '/work dir',
  gpus: 2,
  slurm: {
    kind: 'slurm',
    parallel: 4,
    time: '00:30:00',
    partition: 'gpu',
    gres_per_gpu: 'gpu:h100',
    sbatch_args: ['--qos=high', '--exclusive'],
    poll_s: 5,
    pending_timeout_s: 600,
  },
  ...over,
});

test("the #SBATCH lines: one job per cell, named for the run, its GPUs, no requeue, the plan's own options last", () => {
  assert.deepEqual(sbatchOptions(input()), [
    '#SBATCH --job-name=fl-ab12cd34-c003',
    '#SBATCH --output=/runs/r1/cells/c003/slurm-%j.out',
    '#SBATCH --error=/runs/r1/cells/c003/slurm-%j.err',
    '#SBATCH --time=00:30:00',
    '#SBATCH --partition=gpu',
    '#SBATCH --nodes=1',
    '#SBATCH --ntasks=1',
    '#SBATCH --gres=gpu:h100:2',
    '#SBATCH --chdir="/work dir"',
    '#SBATCH --no-requeue',
    '#SBATCH --qos=high',
    '#SBATCH --exclusive',
  ]);
  const cpuOnly = sbatchOptions(
    input({ slurm: { ...input().slurm, gres_per_gpu: null, partition: undefined, account: 'proj' } }),
  );
  assert.ok(!cpuOnly.some((l) => l.includes('--gres') || l.includes('--partition')));
  assert.ok(cpuOnly.includes('#SBATCH --account=proj'));
  assert.throws(() => sbatchOptions(input({ cellDir: '/runs/"x"' })), /cannot carry/);
  assert.throws(
    () => sbatchOptions(input({ slurm: { ...input().slurm, sbatch_args: ['qos=high'] } })),
    /is not an option/,
  );
});

test('the script runs: it writes where the server listens, exports the environment and execs the argv unchanged', () => {
  const script = renderCellScript(
    input({
      argv: ['printf', '%s\\n', '{host}:{port}', '{"a": "$(x)"}'],
      slurm: { ...input().slurm, host: '127.0.0.1' },
    }),
  );
  assert.match(
    script,
    /^#!\/bin\/bash\n# faultline matrix cell c003: kv_cache=fp8 speculative=k7\n#SBATCH --job-name/,
  );
  // run it as Slurm would, with a job id and a scratch cell directory
  const dir = spawnSync('mktemp', ['-d'], { encoding: 'utf8' }).stdout.trim();
  const r = spawnSync('bash', ['-c', script.replaceAll('/runs/r1/cells/c003', dir)], {
    env: { PATH: process.env.PATH, SLURM_JOB_ID: '4242' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const endpoint = JSON.parse(
    spawnSync('cat', [`${dir}/endpoint-4242.json`], { encoding: 'utf8' }).stdout,
  ) as { job: string; host: string; port: number };
  assert.equal(endpoint.job, '4242');
  assert.equal(endpoint.host, '127.0.0.1');
  assert.ok(endpoint.port >= 20000 && endpoint.port < 60000);
  assert.equal(r.stdout, `127.0.0.1:${endpoint.port}\n{"a": "$(x)"}\n`);
  assert.throws(() => renderCellScript(input({ env: { 'BAD-NAME': 'x' } })), /cannot be exported/);
});

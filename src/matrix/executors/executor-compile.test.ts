import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../../core/errors.js';
import { buildLaunch } from '../launch-spec.js';
import { parsePlan } from '../plan-load.js';
import { configFromLevels } from '../space.js';

const plan = (extra: string, argv = '[srv, --port, "{port}"]') => `launch:
  argv: ${argv}
factors:
  tp:
    levels:
      "1": {}
      "2": { argv: [--tensor-parallel-size, "2"], gpus: 2 }
      "4": { argv: [--tensor-parallel-size, "4"], gpus: 4 }
  pp:
    levels:
      "1": {}
      "2": { argv: [--pipeline-parallel-size, "2"], gpus: 2 }
${extra}`;

/** The UserError the plan is refused with (assert.throws checks it is one). */
function errorOf(text: string): UserError {
  let caught: unknown;
  assert.throws(
    () => parsePlan('plan.yaml', text),
    (e) => ((caught = e), e instanceof UserError),
  );
  return caught as UserError;
}

test("a cell needs launch.gpus, or the product of its levels' gpus (TP × PP)", () => {
  const p = parsePlan('plan.yaml', plan('executor: { gpus: [0, 1, 2, 3, 4, 5, 6, 7] }\n'));
  const gpus = (levels: Record<string, string>) => buildLaunch(p, configFromLevels(p.space, levels)).gpus;
  assert.equal(gpus({ tp: '1', pp: '1' }), 1);
  assert.equal(gpus({ tp: '2', pp: '1' }), 2);
  assert.equal(gpus({ tp: '4', pp: '2' }), 8);
  assert.equal(p.executor.kind, 'local');
  assert.equal(p.executor.parallel, 8, 'one slot per GPU unless parallel is written');
  const based = parsePlan(
    'plan.yaml',
    plan('executor: { gpus: [0, 1, 2, 3, 4, 5, 6, 7] }\n').replace('launch:\n', 'launch:\n  gpus: 2\n'),
  );
  assert.equal(
    buildLaunch(based, configFromLevels(based.space, { tp: '1', pp: '1' })).gpus,
    2,
    'launch.gpus when no level says',
  );
  assert.equal(
    buildLaunch(based, configFromLevels(based.space, { tp: '4', pp: '1' })).gpus,
    4,
    'a level replaces launch.gpus',
  );
});

test('a level needing more GPUs than are listed is an error at that level', () => {
  const text = plan('executor: { gpus: [0, 1, 2] }\n');
  const e = errorOf(text);
  assert.match(e.message, /level "4" of "tp" needs 4 GPUs, but 3 are listed/);
  assert.equal(e.at?.line, 8);
  // the reference's own GPUs are not the cells'
  assert.match(
    errorOf(plan('executor: { gpus: [0, 1, 2, 3] }\nreference: { keep_alive: true, gpus: "3" }\n')).message,
    /needs 4 GPUs, but 3 are listed for cells/,
  );
});

test('executor.gpus lists one GPU per entry (the old per-slot "0,1" form is refused with the new way)', () => {
  const e = errorOf(plan('executor: { gpus: ["0,1", "2,3"] }\n'));
  assert.match(e.message, /"0,1" is not one GPU id/);
  assert.match(e.hint ?? '', /launch\.gpus or its levels' gpus/);
  assert.match(errorOf(plan('executor: { gpus: [0, 1, 1, 2, 3] }\n')).message, /GPU 1 is listed twice/);
});

test('slurm: the schema takes its options, defaults the rest, and refuses a bad time or reference.gpus', () => {
  const p = parsePlan(
    'plan.yaml',
    plan('executor: { kind: slurm, time: "00:30:00", partition: gpu, sbatch_args: [--qos=high] }\n'),
  );
  assert.equal(p.executor.kind, 'slurm');
  if (p.executor.kind !== 'slurm') return;
  assert.equal(p.executor.parallel, 4);
  assert.equal(p.executor.gres_per_gpu, 'gpu');
  assert.deepEqual(p.executor.sbatch_args, ['--qos=high']);
  assert.match(
    errorOf(plan('executor: { kind: slurm, time: "half an hour" }\n')).message,
    /executor\.time: a Slurm time limit/,
  );
  assert.match(errorOf(plan('executor: { kind: slurm }\n')).message, /executor\.time/);
  assert.match(
    errorOf(plan('executor: { kind: slurm, time: "10", gpus: [0] }\n')).message,
    /unknown key "gpus"/,
  );
  assert.match(
    errorOf(plan('executor: { kind: slurm, time: "10" }\nreference: { gpus: "0" }\n')).message,
    /reference\.gpus names GPUs, but slurm chooses them/,
  );
  assert.match(errorOf(plan('executor: { kind: pbs }\n')).message, /executor\.kind/);
});

test('kubernetes: placeholders a pod cannot fill are refused where they are written', () => {
  const k8s = 'executor: { kind: kubernetes, namespace: sweeps, image: "vllm/vllm-openai:v0.23.1" }\n';
  const p = parsePlan('plan.yaml', plan(k8s, '[vllm, serve, m, --host, "{host}", --port, "{port}"]'));
  assert.equal(p.executor.kind, 'kubernetes');
  const e = errorOf(plan(k8s, '[vllm, serve, m, --log, "{cell_dir}/x.log", --port, "{port}"]'));
  assert.match(e.message, /\{cell_dir\} cannot be filled in a Kubernetes cell/);
  assert.equal(e.at?.line, 2);
  assert.match(
    errorOf(plan('executor: { kind: kubernetes, namespace: Bad_NS, image: x }\n')).message,
    /executor\.namespace: a Kubernetes namespace name/,
  );
});

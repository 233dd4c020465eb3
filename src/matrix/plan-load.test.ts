import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.js';
import { buildLaunch } from './launch-spec.js';
import { loadPlanFile, parsePlan } from './plan-load.js';
import { configFromLevels } from './space.js';

const fixture = fileURLToPath(new URL('../../test/fixtures/matrix/seed-like.yaml', import.meta.url));

function planError(text: string): UserError {
  try {
    parsePlan('plan.yaml', text);
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  assert.fail('expected a UserError');
}

/** 1-based line and column of the first occurrence of `needle` in `text`. */
function whereIs(text: string, needle: string, nth = 0): { line: number; column: number } {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  assert.ok(offset >= 0, `needle ${needle} not in text`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

const minimal = (extra = '', argv = '[srv, --port, "{port}"]') => `launch:
  argv: ${argv}
factors:
  a: { levels: { "off": {}, "on": { argv: [--a] } } }
  b: { levels: { "off": {}, "on": { argv: [--b] } } }
${extra}`;

test('the seed-like fixture compiles: space, baseline, constraints, defaults', () => {
  const plan = loadPlanFile(fixture);
  assert.deepEqual(plan.space.names, ['fp8_kv', 'spec', 'spec_k', 'q_quant', 'eager', 'prefix_cache', 'block_size', 'batch_invariant']);
  assert.deepEqual(plan.space.levels[2], ['na', '3', '7']);
  assert.deepEqual(plan.baseline, [0, 0, 0, 0, 0, 0, 0, 0]);
  assert.equal(plan.strength, 3);
  assert.deepEqual(plan.confirm, { kind: "fixed", reprobes: 2 });
  assert.equal(plan.launch.readyTimeoutMs, 60_000);
  assert.equal(plan.launch.stopTimeoutMs, 10_000);
  assert.equal(plan.constraints.countValid(), 2 ** 6 * 5); // spec×spec_k: off/na + 2×2
  assert.equal(plan.reference.kind, 'launch');
  assert.match(plan.hash, /^[0-9a-f]{64}$/);
});

test('a launch: base argv, level argv in factor order, merged JSON flags, env', () => {
  const plan = loadPlanFile(fixture);
  const config = configFromLevels(plan.space, {
    fp8_kv: 'on', spec: 'ngram', spec_k: '7', q_quant: 'disabled', eager: 'off', prefix_cache: 'off', block_size: '32', batch_invariant: 'on',
  });
  const launch = buildLaunch(plan, config);
  assert.deepEqual(launch.argv, [
    'node', 'server.js', '--port', '{port}', '--model', 'models/tiny-swa',
    '--kv-cache-dtype', 'fp8', '--speculative-method', 'ngram', '--num-speculative-tokens', '7', '--block-size', '32',
    '--attention-config', '{"backend":"flashinfer","disable_flashinfer_q_quantization":true}',
  ]);
  assert.deepEqual(launch.env, { ENGINE_LOG: 'info', VLLM_BATCH_INVARIANT: '1' });
});

test('schema problems point at the plan line and column', () => {
  const text = minimal('strenght: 3\n');
  const e = planError(text);
  assert.match(e.message, /unknown key "strenght"/);
  assert.deepEqual({ line: e.at?.line, column: e.at?.column }, whereIs(text, 'strenght'));
  assert.equal(e.at?.file, 'plan.yaml');

  const t2 = minimal('strength: 9\n');
  const e2 = planError(t2);
  assert.match(e2.message, /strength/);
  assert.deepEqual({ line: e2.at?.line, column: e2.at?.column }, whereIs(t2, '9'));
});

test('unknown factor and level names in constraints and the reference', () => {
  const t1 = minimal('constraints:\n  - forbid: { a: "on", c: "on" }\n');
  const e1 = planError(t1);
  assert.match(e1.message, /unknown factor "c"/);
  assert.deepEqual({ line: e1.at?.line, column: e1.at?.column }, whereIs(t1, 'c: "on"'));
  const t2 = minimal('constraints:\n  - forbid: { a: "on", b: [maybe, "on"] }\n');
  const e2 = planError(t2);
  assert.match(e2.message, /factor "b" has no level "maybe"/);
  assert.deepEqual({ line: e2.at?.line, column: e2.at?.column }, whereIs(t2, 'maybe'));
  const e3 = planError(minimal('reference: { levels: { a: sometimes } }\n'));
  assert.match(e3.message, /factor "a" has no level "sometimes"/);
});

test('unsatisfiable constraints: exit-2 error at the constraint that empties the space', () => {
  const text = minimal(`constraints:
  - if: { a: "off" }
    then: { b: "on" }
  - if: { a: "on" }
    then: { b: "on" }
  - forbid: { b: "on" }
`);
  const e = planError(text);
  assert.equal(e.code, 'E_PLAN');
  assert.match(e.message, /unsatisfiable/);
  assert.deepEqual({ line: e.at?.line, column: e.at?.column }, whereIs(text, 'forbid'));
});

test('a level that can never be chosen is an error, as is a reference that breaks a rule', () => {
  const dead = minimal('constraints:\n  - forbid: { a: "on" }\n');
  const e = planError(dead);
  assert.match(e.message, /level "on" of factor "a" can never be chosen/);
  const badRef = minimal('reference: { levels: { a: "on", b: "on" } }\nconstraints:\n  - forbid: { a: "on", b: "on" }\n');
  assert.match(planError(badRef).message, /reference configuration breaks the constraint "forbid a=on, b=on"/);
});

test('placeholders: unknown ones and a missing {port} are errors at their position', () => {
  const t1 = minimal('', '[srv, --port, "{prot}"]');
  const e1 = planError(t1);
  assert.match(e1.message, /unknown placeholder \{prot\}/);
  assert.deepEqual({ line: e1.at?.line, column: e1.at?.column }, whereIs(t1, '"{prot}"'));
  assert.match(planError(minimal('', '[srv, --port, 8000]')).message, /never says which port/);
  // JSON text is not a placeholder.
  const ok = parsePlan('p.yaml', minimal('', `[srv, --port, "{port}", --x, '{"a": 1}']`));
  assert.equal(ok.launch.argv.at(-1), '{"a": 1}');
});

test('two factors that disagree on a JSON key are rejected unless a constraint keeps them apart', () => {
  const clash = `launch: { argv: [srv, --port, "{port}"] }
factors:
  a: { levels: { "off": {}, "on": { json_args: { --cfg: { x: 1 } } } } }
  b: { levels: { "off": {}, "on": { json_args: { --cfg: { x: 2 } } } } }
`;
  assert.match(planError(clash).message, /x is set differently by a=on and b=on/);
  const apart = clash + 'constraints:\n  - forbid: { a: "on", b: "on" }\n';
  assert.doesNotThrow(() => parsePlan('p.yaml', apart));
  const plainToo = minimal('', '[srv, --port, "{port}", --cfg, "{}"]').replace('argv: [--a]', 'json_args: { --cfg: { y: 1 } }');
  assert.match(planError(plainToo).message, /--cfg is given in argv and as JSON-valued flag/);
});

test('YAML syntax errors and unreadable files are user errors', () => {
  const e = planError('launch: [unclosed\n');
  assert.equal(e.code, 'E_PLAN_YAML');
  assert.equal(e.at?.file, 'plan.yaml');
  assert.throws(() => loadPlanFile('/nonexistent/plan.yaml'), (x: unknown) => x instanceof UserError && /cannot read plan/.test(x.message));
  assert.match(planError('').message, /launch/);
});

test('executor: gpus alone set the slot count (one cell per GPU); parallel, when written, caps the cells instead', () => {
  assert.equal(parsePlan('p.yaml', minimal('executor: { gpus: ["0", "1"] }\n')).executor.parallel, 2);
  assert.equal(parsePlan('p.yaml', minimal('executor: { parallel: 3, gpus: ["0", "1"] }\n')).executor.parallel, 3);
});

test('top-level x- keys are ignored, so YAML anchors can live there; written level order is kept', () => {
  const plan = parsePlan('p.yaml', `x-onoff: &onoff { "off": {}, "on": {} }
launch: { argv: [srv, --port, "{port}"] }
factors:
  a: { levels: *onoff }
  block: { levels: { 32: {}, 16: {}, auto: {} } }
`);
  assert.deepEqual(plan.space.levels, [['off', 'on'], ['32', '16', 'auto']]);
});

test('reference.keep_alive compiles; with a reference URL it is an error at its line', () => {
  const kept = parsePlan('plan.yaml', minimal('reference: { keep_alive: true, gpus: "3" }\n'));
  assert.deepEqual(kept.reference, { kind: 'launch', keepAlive: true, gpus: '3' });
  assert.deepEqual(parsePlan('plan.yaml', minimal()).reference, { kind: 'launch', keepAlive: false });
  const text = minimal('reference:\n  url: http://127.0.0.1:8000\n  keep_alive: true\n');
  const e = planError(text);
  assert.match(e.message, /reference\.url names a server faultline does not launch/);
  assert.equal(e.at?.line, whereIs(text, 'keep_alive').line);
});

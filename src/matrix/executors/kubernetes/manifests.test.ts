import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { fullestManifests, PRUNED } from '../../../../scripts/gen-k8s-schema-subset.js';
import { kubernetesExecutorSchema } from '../executor-schema.js';
import { cellManifests, KUEUE_QUEUE_LABEL, manifestsYaml, objectName, RUN_LABEL } from './manifests.js';

const subset = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../../../../test/fixtures/kubernetes/schema-subset.json', import.meta.url)),
    'utf8',
  ),
) as {
  job: Record<string, unknown>;
  service: Record<string, unknown>;
};

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv, ['date-time']);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  return { job: ajv.compile(subset.job), service: ajv.compile(subset.service) };
}

const minimal = () =>
  cellManifests({
    cellId: 'reference',
    runTag: 'ab12cd34',
    levels: {},
    argv: ['vllm', 'serve', 'm', '--host', '{host}', '--port', '{port}'],
    env: {},
    gpus: 1,
    health: '/health',
    kubernetes: kubernetesExecutorSchema.parse({
      kind: 'kubernetes',
      namespace: 'sweeps',
      image: 'vllm/vllm-openai:v0.23.1',
    }),
  });

test('the Job and Service of a cell validate against the Kubernetes v1.32.2 schemas (strict: unknown fields fail), with every option set and with none', () => {
  const v = validator();
  for (const m of [fullestManifests(), minimal()]) {
    assert.equal(v.job(m.job), true, JSON.stringify(v.job.errors));
    assert.equal(v.service(m.service), true, JSON.stringify(v.service.errors));
  }
});

test('the schema check can fail: a misspelt field, a port as text, a bad restart policy value type are all rejected', () => {
  const v = validator();
  const typo = structuredClone(fullestManifests().job) as {
    spec: { template: { spec: Record<string, unknown> } };
  };
  typo.spec.template.spec.nodeselector = typo.spec.template.spec.nodeSelector;
  assert.equal(v.job(typo), false);
  assert.match(JSON.stringify(v.job.errors), /additionalProperties|nodeselector/);
  const port = structuredClone(fullestManifests().service) as { spec: { ports: Record<string, unknown>[] } };
  port.spec.ports[0].port = '8000';
  assert.equal(v.service(port), false);
  const big = structuredClone(fullestManifests().job) as { spec: Record<string, unknown> };
  big.spec.backoffLimit = 2 ** 40; // int32
  assert.equal(v.job(big), false);
});

test('every path of the generated manifests is one the schema subset kept (else: rerun scripts/gen-k8s-schema-subset.ts)', () => {
  const walk = (schema: unknown, value: unknown, path: string): void => {
    const s = schema as Record<string, unknown>;
    assert.ok(!s[PRUNED], `${path} is set by the manifests but was pruned from the schema subset`);
    if (Array.isArray(value)) value.forEach((x, i) => walk(s.items, x, `${path}[${i}]`));
    else if (value && typeof value === 'object' && s.properties)
      for (const [k, x] of Object.entries(value)) {
        const sub = (s.properties as Record<string, unknown>)[k];
        assert.ok(sub, `${path}.${k} is not a field of the schema`);
        walk(sub, x, `${path}.${k}`);
      }
  };
  for (const m of [fullestManifests(), minimal()]) {
    walk(subset.job, m.job, 'job');
    walk(subset.service, m.service, 'service');
  }
});

test('labels own every object of the run; a Kueue queue adds its label and a suspended Job; GPUs are requested and limited', () => {
  const m = fullestManifests();
  const job = m.job as {
    metadata: { labels: Record<string, string> };
    spec: {
      suspend?: boolean;
      template: {
        metadata: { labels: Record<string, string> };
        spec: { containers: { resources: { limits: Record<string, string> }; command: string[] }[] };
      };
    };
  };
  const service = m.service as {
    metadata: { labels: Record<string, string> };
    spec: { selector: Record<string, string> };
  };
  for (const labels of [job.metadata.labels, job.spec.template.metadata.labels, service.metadata.labels])
    assert.equal(labels[RUN_LABEL], 'ab12cd34');
  assert.equal(job.metadata.labels[KUEUE_QUEUE_LABEL], 'gpu-sweeps');
  assert.equal(job.spec.suspend, true);
  assert.deepEqual(service.spec.selector, { [RUN_LABEL]: 'ab12cd34', 'faultline-cell': 'c001' });
  const container = job.spec.template.spec.containers[0];
  assert.equal(container.resources.limits['nvidia.com/gpu'], '2');
  assert.deepEqual(container.command, ['vllm', 'serve', 'm', '--port', '8000']);
  assert.equal(
    (minimal().job as { spec: { suspend?: boolean } }).spec.suspend,
    undefined,
    'without a queue the Job starts at once',
  );
  assert.match(
    manifestsYaml(m),
    /^apiVersion: batch\/v1\nkind: Job\n[\s\S]*\n---\napiVersion: v1\nkind: Service\n/,
  );
  assert.equal(objectName('AB12', 'C_001'), 'fl-ab12-c-001');
  assert.ok(objectName('x'.repeat(80), 'c001').length <= 63);
});

test('the cells of examples/kubernetes/matrix.yaml validate too (its most-enabled launch, with JSON-valued flags)', async () => {
  const { loadPlanFile } = await import('../../plan-load.js');
  const { buildLaunch } = await import('../../launch-spec.js');
  const { configLevels } = await import('../../space.js');
  const plan = loadPlanFile(
    fileURLToPath(new URL('../../../../examples/kubernetes/matrix.yaml', import.meta.url)),
  );
  assert.equal(plan.executor.kind, 'kubernetes');
  if (plan.executor.kind !== 'kubernetes') return;
  const v = validator();
  for (const config of [plan.baseline, plan.space.levels.map((l) => l.length - 1)]) {
    const spec = buildLaunch(plan, config);
    const m = cellManifests({
      cellId: 'c001',
      runTag: 'ab12cd34',
      levels: configLevels(plan.space, config),
      argv: spec.argv,
      env: spec.env,
      gpus: spec.gpus,
      health: plan.launch.health,
      kubernetes: plan.executor,
    });
    assert.equal(v.job(m.job), true, JSON.stringify(v.job.errors));
    assert.equal(v.service(m.service), true, JSON.stringify(v.service.errors));
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describeDryRun, dryRunJson } from '../../cli/commands/matrix-dry-run.js';
import { loadPlanFile, parsePlan } from '../plan-load.js';

const slurmExample = fileURLToPath(new URL('../../../examples/slurm/matrix.yaml', import.meta.url));

test("--dry-run of a Slurm plan prints every cell's sbatch script (text and JSON); a local plan prints none", () => {
  const plan = loadPlanFile(slurmExample);
  const text = describeDryRun(plan, 2, 'examples/slurm/matrix.yaml');
  const scripts = text.split('── ').filter((s) => s.includes('sbatch script'));
  const json = JSON.parse(dryRunJson(plan, 2)) as {
    reference: { submission: string };
    maximal: { submission: string }[];
    covering: { submission: string }[];
  };
  assert.equal(scripts.length, 1 + json.maximal.length + json.covering.length, 'the reference and every row');
  assert.match(
    json.reference.submission,
    /#SBATCH --job-name=fl-RUNTAG-reference\n[\s\S]*exec 'node' '.*\/bin\/faultline.js' 'engine' 'serve'/,
  );
  assert.match(json.maximal[0].submission, /'--kv-cache-dtype' 'fp8_e4m3'/);
  const local = parsePlan(
    'p.yaml',
    'launch: { argv: [srv, --port, "{port}"] }\nfactors: { a: { levels: { "off": {}, "on": {} } } }\n',
  );
  assert.ok(!describeDryRun(local, 1, 'p.yaml').includes('sbatch'));
  assert.equal(
    (JSON.parse(dryRunJson(local, 1)) as { maximal: { submission?: string }[] }).maximal[0].submission,
    undefined,
  );
});

test("--dry-run of a Kubernetes plan prints each cell's Job and Service", () => {
  const plan = parsePlan(
    'p.yaml',
    'launch: { argv: [vllm, serve, m, --port, "{port}"] }\nexecutor: { kind: kubernetes, namespace: sweeps, image: "vllm/vllm-openai:v0.23.1", queue: gpu }\nfactors: { a: { levels: { "off": {}, "on": { argv: [--x] } } } }\n',
  );
  const text = describeDryRun(plan, 4, 'p.yaml');
  assert.match(text, /── m1: Job and Service/);
  assert.match(
    text,
    /kind: Job\n[\s\S]*kueue\.x-k8s\.io\/queue-name: gpu[\s\S]*---\napiVersion: v1\nkind: Service/,
  );
});

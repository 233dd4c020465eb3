/**
 * A hazard example (src/hazards/examples/example-launch.ts) as the Deployment lint would build from
 * it: the command is read as a one-launch shell script through the real shell source and vLLM argv
 * emulation, the GPU and versions go through the CLI's options, the model preset stands in for
 * --model-config. And a change applied to an example: through the same code `lint --suggest` uses
 * (suggest/apply-change.ts) and written back as a shell command, so every remedy test also tests
 * the rewriting.
 */
import assert from 'node:assert/strict';
import type { Deployment } from '../../../src/deployment/deployment.js';
import { assembleDeployment } from '../../../src/deployment/sources/assemble.js';
import { collectLaunches } from '../../../src/deployment/sources/collect.js';
import type { LaunchChange } from '../../../src/hazards/change.js';
import type { ExampleLaunch } from '../../../src/hazards/examples/example-launch.js';
import { modelPreset } from '../../../src/hazards/examples/models.js';
import { applyChange } from '../../../src/hazards/suggest/apply-change.js';
import { renderShell } from '../../../src/hazards/suggest/render.js';

const DIR = '/nonexistent-faultline-examples';

export function exampleDeployment(x: ExampleLaunch, file: string): Deployment {
  const absPath = `${DIR}/${file}`;
  const { launches } = collectLaunches([{ path: file, absPath, baseDir: DIR, text: `${x.command}\n` }]);
  assert.equal(launches.length, 1, `${file}: the example command must hold exactly one vLLM launch`);
  const d = assembleDeployment(launches[0], {
    cwd: DIR,
    gpu: x.gpu,
    vllmVersion: x.vllm,
    flashinferVersion: x.flashinfer,
    displayPaths: new Map([[absPath, file]]),
  });
  if (x.model) {
    const preset = modelPreset(x.model);
    assert.ok(preset, `${file}: model preset ${x.model}`);
    d.modelFacts = preset.facts();
  }
  return d;
}

/** The example with `change` applied, as a new example (command rewritten, facts updated). */
export function applyToExample(x: ExampleLaunch, d: Deployment, change: LaunchChange): ExampleLaunch {
  assert.ok(d.argv, 'the example has argv words');
  const applied = applyChange(d, d.argv, change);
  const leftover = applied.instructions.filter((i) => !/^run |^serve /.test(i.value));
  assert.deepEqual(leftover, [], 'an example change must be expressible on the command line');
  const env: Record<string, string> = {};
  for (const [k, v] of d.env) env[k] = v.value;
  for (const u of applied.env.unset) delete env[u.value];
  Object.assign(env, applied.env.set);
  for (const [k, v] of Object.entries(change.env ?? {})) if (v === null) delete env[k];
  const out: ExampleLaunch = { ...x, command: renderShell(applied.tokens, { env }) };
  if (change.versions?.vllm) out.vllm = change.versions.vllm;
  if (change.versions?.flashinfer) out.flashinfer = change.versions.flashinfer;
  if (change.model) out.model = change.model;
  return out;
}

/**
 * The CI integrations: action.yml, .pre-commit-hooks.yaml and the example workflow validate against
 * SchemaStore's schemas (test/fixtures/schemas, with provenance). The action's own shell steps run
 * here as the runner would run them (bash -e -o pipefail, inputs substituted into their env, the
 * GITHUB_* files) on a workspace of launch files; only the steps that need GitHub (setup-node, the
 * SARIF upload) and the install step (this checkout is installed) are left out, and the test says
 * which. The SARIF they write validates against 2.1.0 and its locations are the flags' lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import Ajv from 'ajv';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from '../helpers/cli.js';

const readYaml = (path: string) => parseYaml(readFileSync(join(repoRoot, path), 'utf8')) as unknown;
const schema = (name: string) => JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/schemas', name), 'utf8')) as object;

function validator(name: string) {
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(schema(name));
}

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface ActionYml {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}
const action = readYaml('action.yml') as ActionYml;

test('action.yml validates against the GitHub Action metadata schema; every expression names a real input or step', () => {
  const validate = validator('github-action.json');
  assert.ok(validate(action), JSON.stringify(validate.errors, null, 2));
  assert.equal(action.runs.using, 'composite');
  const ids = new Set(action.runs.steps.map((s) => s.id).filter(Boolean));
  const text = readFileSync(join(repoRoot, 'action.yml'), 'utf8');
  for (const [, name] of text.matchAll(/\binputs\.([\w-]+)/g)) assert.ok(name in action.inputs, `inputs.${name} is not declared`);
  for (const [, id] of text.matchAll(/\bsteps\.([\w-]+)\.outputs/g)) assert.ok(ids.has(id), `steps.${id} is not a step id`);
  for (const s of action.runs.steps.filter((x) => x.run))
    for (const [, script] of s.run!.matchAll(/\$GITHUB_ACTION_PATH\/([\w./-]+)/g))
      assert.ok(existsSync(join(repoRoot, script)), `${s.name}: ${script} does not exist in the action's repository`);
});

/** A workspace (the user's repository) of launch files. */
function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'faultline-action-'));
  mkdirSync(join(ws, 'deploy/k8s'), { recursive: true });
  mkdirSync(join(ws, 'deploy/model'));
  copyFileSync(join(repoRoot, 'examples/seed-b200/serve.sh'), join(ws, 'deploy/serve.sh'));
  copyFileSync(join(repoRoot, 'examples/seed-b200/k8s-deployment-exec.yaml'), join(ws, 'deploy/k8s/deployment.yaml'));
  copyFileSync(join(repoRoot, 'examples/container/k8s-deployment.yaml'), join(ws, 'deploy/k8s/guarded.yaml'));
  copyFileSync(join(repoRoot, 'examples/seed-b200/config.json'), join(ws, 'deploy/model/config.json'));
  return ws;
}

/** Runs action.yml's shell steps as the runner would; returns what each step did. */
function runAction(ws: string, given: Record<string, string>) {
  const inputs = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, given[k] ?? v.default ?? '']));
  for (const [k, v] of Object.entries(action.inputs)) if (v.required) assert.ok(given[k], `required input ${k}`);
  const outputFile = join(ws, '.github-output');
  const summaryFile = join(ws, '.github-step-summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const stepOutputs: Record<string, Record<string, string>> = {};
  const expand = (v: string) =>
    v
      .replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, n: string) => inputs[n])
      .replace(/\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}/g, (_, id: string, o: string) => stepOutputs[id]?.[o] ?? '');
  const ran: { name: string; code: number | null; stdout: string; stderr: string }[] = [];
  const left: string[] = [];
  for (const step of action.runs.steps) {
    if (step.uses || /\bnpm ci\b/.test(step.run ?? '')) {
      left.push(step.name ?? step.uses!);
      continue;
    }
    assert.equal(step.shell, 'bash');
    writeFileSync(outputFile, '');
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v)]));
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd: ws,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_ACTION_PATH: repoRoot, GITHUB_WORKSPACE: ws, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, ...env },
    });
    ran.push({ name: step.name!, code: r.status, stdout: r.stdout, stderr: r.stderr });
    if (step.id)
      stepOutputs[step.id] = Object.fromEntries(
        readFileSync(outputFile, 'utf8').split('\n').filter(Boolean).map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
      );
    if (r.status !== 0) break; // a failed step ends a composite action
  }
  return { ran, left, stepOutputs, summary: readFileSync(summaryFile, 'utf8') };
}

const lineOf = (path: string, needle: string) => readFileSync(path, 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

test('the action lints the given globs, writes SARIF 2.1.0 whose locations are the flags’ lines, annotates, and fails on errors', () => {
  const ws = workspace();
  const { ran, left, stepOutputs, summary } = runAction(ws, {
    paths: 'deploy/*.sh\ndeploy/**/*.yaml',
    'model-config': 'deploy/model/config.json',
    gpu: 'NVIDIA B200',
    'flashinfer-version': '0.6.14',
  });
  assert.deepEqual(left, ['Set up Node 20', 'Install faultline', 'Upload SARIF to code scanning']);
  assert.deepEqual(ran.map((r) => [r.name, r.code]), [['Lint the launch files', 0], ['Annotate and gate', 1]], JSON.stringify(ran, null, 1));
  assert.match(ran[0].stdout, /linted 3 file\(s\) into faultline\.sarif/);

  const sarifPath = join(ws, stepOutputs.lint['sarif-file']);
  const log = JSON.parse(readFileSync(sarifPath, 'utf8')) as {
    runs: { results: { ruleId: string; level: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }[] }[] }[];
  };
  const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema('../sarif-schema-2.1.0.json'));
  assert.ok(validate(log), JSON.stringify(validate.errors));
  const results = log.runs[0].results;
  assert.ok(results.length > 0);
  for (const r of results) {
    const { artifactLocation, region } = r.locations[0].physicalLocation;
    // code scanning maps a relative URI onto the repository; an absolute or file: URI would not annotate
    assert.ok(!isAbsolute(artifactLocation.uri) && !artifactLocation.uri.includes(':') && !artifactLocation.uri.startsWith('..'), artifactLocation.uri);
    const text = readFileSync(join(ws, artifactLocation.uri), 'utf8').split('\n')[region.startLine - 1] ?? '';
    // a finding points at the flag that triggers it, or at the model argument when the model is the trigger
    assert.match(text.slice(region.startColumn - 1), /^(--[a-z][a-z0-9-]+|nvidia\/Gemma-4-31B-IT-NVFP4)/, `${r.ruleId} at ${artifactLocation.uri}:${region.startLine}:${region.startColumn} is neither a flag nor the model: ${text}`);
  }
  // FL003 (confirmed for flashinfer 0.6.14 with MTP k = 7) and FL001 (reproduced) are errors
  assert.ok(results.some((r) => r.ruleId === 'FL001' && r.level === 'error'));
  const fl003 = results.filter((r) => r.ruleId === 'FL003');
  assert.deepEqual(
    fl003.map((r) => [r.level, r.locations[0].physicalLocation.artifactLocation.uri, r.locations[0].physicalLocation.region.startLine]).sort(),
    [
      ['error', 'deploy/k8s/deployment.yaml', lineOf(join(ws, 'deploy/k8s/deployment.yaml'), '--speculative-config')],
      ['error', 'deploy/serve.sh', lineOf(join(ws, 'deploy/serve.sh'), '--speculative-config')],
    ],
  );
  assert.ok(!results.some((r) => r.locations[0].physicalLocation.artifactLocation.uri === 'deploy/k8s/guarded.yaml' && r.level === 'error'));

  const gate = ran[1].stdout;
  assert.match(gate, new RegExp(`^::error file=deploy/serve\\.sh,line=${lineOf(join(ws, 'deploy/serve.sh'), '--speculative-config')},col=3,title=FL003 trtllm-gen-multitoken-reduction-index::`, 'm'));
  assert.match(gate, /^::warning file=deploy\/k8s\/deployment\.yaml,line=\d+,col=15,title=FL002 /m);
  // FL003 and FL001 (reproduced), each in serve.sh and the Deployment
  assert.match(gate, /failing \(fail-on: error\): 4 error\(s\), \d+ warning\(s\)/);
  assert.match(summary, /^### faultline: 4 error\(s\)/m);
});

test('fail-on: warnings pass under "error", fail under "warning"; "never" only reports; a glob that matches nothing fails the lint step', () => {
  const ws = workspace();
  // the canonical launch on an H100: FL001 and FL003 need SM100, so only warnings remain
  const base = { paths: 'deploy/serve.sh', gpu: 'NVIDIA H100' };
  const codes = (failOn: string) => runAction(ws, { ...base, 'fail-on': failOn }).ran.map((r) => r.code);
  const outcome = runAction(ws, base);
  assert.match(outcome.ran[1].stdout, /0 error\(s\), [1-9]\d* warning\(s\); fail-on: error/);
  assert.equal(outcome.stepOutputs.gate.errors, '0');
  assert.deepEqual(codes('error'), [0, 0]);
  assert.deepEqual(codes('warning'), [0, 1]);
  assert.deepEqual(codes('never'), [0, 0]);
  const none = runAction(ws, { paths: 'deploy/*.sh nothing/**/*.yaml' });
  assert.deepEqual(none.ran.map((r) => r.code), [2]);
  assert.match(none.ran[0].stdout, /::error title=faultline::no file matches nothing\/\*\*\/\*\.yaml/);
});

test('.pre-commit-hooks.yaml validates against the pre-commit hooks schema, and its entry is the package’s bin', () => {
  const hooks = readYaml('.pre-commit-hooks.yaml') as { id: string; entry: string; language: string; types_or?: string[] }[];
  const validate = validator('pre-commit-hooks.json');
  assert.ok(validate(hooks), JSON.stringify(validate.errors, null, 2));
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const [hook] = hooks;
  assert.equal(hook.language, 'node');
  const [program, ...args] = hook.entry.split(' ');
  assert.ok(program in pkg.bin, `${program} is not a bin of the package`);
  // what pre-commit runs: the entry with the staged file names appended
  const r = spawnSync(process.execPath, [join(repoRoot, pkg.bin[program]), ...args, 'examples/seed-b200/serve.sh', 'examples/seed-b200/k8s-deployment-exec.yaml', '--gpu', 'B200', '--model-config', 'examples/seed-b200/config.json'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /error {2}FL001 /);
  const config = readYaml('examples/ci/pre-commit-config.yaml') as { repos: { hooks: { id: string }[] }[] };
  assert.equal(config.repos[0].hooks[0].id, hook.id);
});

test('the example workflow validates against the GitHub workflow schema and gives the action only inputs it declares', () => {
  const workflow = readYaml('examples/ci/github-workflow.yml') as { permissions: Record<string, string>; jobs: Record<string, { steps: Step[] }> };
  const validate = validator('github-workflow.json');
  assert.ok(validate(workflow), JSON.stringify(validate.errors, null, 2));
  const step = Object.values(workflow.jobs).flatMap((j) => j.steps).find((s) => s.uses?.endsWith('/faultline@v0.1.0'));
  assert.ok(step, 'a step uses the faultline action');
  for (const k of Object.keys(step.with ?? {})) assert.ok(k in action.inputs, `with.${k} is not an input of action.yml`);
  for (const [k, v] of Object.entries(action.inputs)) if (v.required) assert.ok(step.with?.[k], `required input ${k} missing`);
  assert.equal(workflow.permissions['security-events'], 'write', 'the SARIF upload needs security-events: write');
});

/**
 * Acceptance for `faultline lint` (issue #2): the seed-b200 launch, its variations, the same launch
 * in every manifest kind, and malformed input. A few cases spawn the real CLI (runCli); the many
 * variations run in process through main() with the same argv, which is the same code path minus
 * the process start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { main } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { repoRoot, runCli } from '../helpers/cli.js';

const seed = join(repoRoot, 'examples/seed-b200');
const serveSh = readFileSync(join(seed, 'serve.sh'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'faultline-lint-e2e-'));
cpSync(seed, join(work, 'seed'), { recursive: true });
const modelConfig = join(work, 'seed/config.json');

interface JsonOut {
  findings: {
    hazardId: string;
    severity: string;
    possibly: boolean;
    message: string;
    location: { file: string; line: number; column: number };
    conditions: { name: string; status: string; detail: string }[];
  }[];
  deployments: unknown[];
}

async function lint(args: string[]): Promise<{ code: number; out: string; err: string; json?: JsonOut }> {
  const io = memoryIO({ cwd: work });
  const code = await main(['lint', ...args], io);
  let json: JsonOut | undefined;
  if (args.includes('json')) json = JSON.parse(io.stdout()) as JsonOut;
  return { code, out: io.stdout(), err: io.stderr(), json };
}

/** Writes a variation of serve.sh with `edit` applied to its text and lints it on a B200. */
let n = 0;
async function lintVariant(edit: (text: string) => string, gpu = 'NVIDIA B200', config = modelConfig) {
  const file = join(work, `variant-${n++}.sh`);
  writeFileSync(file, edit(serveSh));
  return lint([file, '--model-config', config, '--gpu', gpu, '--format', 'json']);
}

const fl001 = (r: { json?: JsonOut }) => r.json?.findings.filter((f) => f.hazardId === 'FL001') ?? [];
const definite = (r: { json?: JsonOut }) => fl001(r).filter((f) => !f.possibly);
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

test('acceptance: the seed-b200 launch (real CLI) exits 1 with FL001, every condition met', async () => {
  const r = await runCli([
    'lint',
    'examples/seed-b200/serve.sh',
    '--model-config',
    'examples/seed-b200/config.json',
    '--gpu',
    'NVIDIA B200',
    '--format',
    'json',
  ]);
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout) as JsonOut;
  const f = out.findings.find((x) => x.hazardId === 'FL001');
  assert.ok(f, r.stdout);
  assert.equal(f.severity, 'error', 'FL001 is reproduced (flashinfer#3864 controls, vllm#47847 attribution): an error');
  assert.equal(f.possibly, false);
  assert.deepEqual(
    f.conditions.filter((c) => c.status !== 'met'),
    [],
  );
  assert.equal(f.location.file, 'examples/seed-b200/serve.sh');
  assert.equal(f.location.line, lineOf(serveSh, '--speculative-config'));
  assert.equal(out.deployments.length, 1);
});

test('--kv-cache-dtype bfloat16 clears FL001; dropping the flag does not, and the finding says auto follows the checkpoint', async () => {
  assert.deepEqual(fl001(await lintVariant((t) => t.replace('fp8_e4m3', 'bfloat16'))), []);
  const dropped = await lintVariant((t) => t.replace('  --kv-cache-dtype fp8_e4m3 \\\n', ''));
  assert.equal(dropped.code, 1);
  const f = definite(dropped)[0];
  assert.ok(f, 'FL001 still applies');
  assert.match(
    f.conditions.find((c) => c.name === 'fp8-kv-cache')?.detail ?? '',
    /auto\) follows the checkpoint, which declares a fp8_e4m3 KV cache/,
  );
});

test('dropping --speculative-config or the attention-config flag clears FL001; --enforce-eager does not', async () => {
  assert.deepEqual(
    fl001(await lintVariant((t) => t.replace(/ \\\n {2}--speculative-config .*\n/, '\n'))),
    [],
  );
  assert.deepEqual(fl001(await lintVariant((t) => t.replace(/ {2}--attention-config .*\n/, ''))), []);
  assert.equal(
    definite(
      await lintVariant((t) =>
        t.replace('--attention-backend FLASHINFER', '--enforce-eager --attention-backend FLASHINFER'),
      ),
    ).length,
    1,
  );
});

test('--gpu H100 clears FL001; a model without sliding layers clears it', async () => {
  assert.deepEqual(fl001(await lintVariant((t) => t, 'NVIDIA H100 80GB HBM3')), []);
  const dense = join(work, 'dense');
  cpSync(join(work, 'seed'), dense, { recursive: true });
  const cfg = JSON.parse(readFileSync(join(dense, 'config.json'), 'utf8'));
  cfg.text_config.layer_types = cfg.text_config.layer_types.map(() => 'full_attention');
  writeFileSync(join(dense, 'config.json'), JSON.stringify(cfg));
  assert.deepEqual(fl001(await lintVariant((t) => t, 'NVIDIA B200', join(dense, 'config.json'))), []);
});

test('num_speculative_tokens 3 clears FL001 and 4 does not', async () => {
  assert.deepEqual(
    fl001(await lintVariant((t) => t.replace('"num_speculative_tokens": 7', '"num_speculative_tokens": 3'))),
    [],
  );
  assert.equal(
    definite(
      await lintVariant((t) => t.replace('"num_speculative_tokens": 7', '"num_speculative_tokens": 4')),
    ).length,
    1,
  );
});

test('the dotted form and the --config YAML form give the same result as the JSON form', async () => {
  const statuses = (r: { json?: JsonOut }) =>
    fl001(r).map((f) => [f.severity, f.conditions.map((c) => `${c.name}=${c.status}`)]);
  const jsonForm = await lintVariant((t) => t);
  const dotted = await lintVariant((t) =>
    t
      .replace(
        `--attention-config '{"disable_flashinfer_q_quantization": true}'`,
        '--attention-config.disable_flashinfer_q_quantization=true',
      )
      .replace(
        /--speculative-config '.*'/,
        '--speculative-config.method mtp --speculative-config.model google/gemma-4-31B-it-assistant --speculative-config.num_speculative_tokens 7',
      ),
  );
  writeFileSync(
    join(work, 'serve-config.yaml'),
    [
      'attention-backend: FLASHINFER',
      'kv-cache-dtype: fp8_e4m3',
      'attention-config:',
      '  disable_flashinfer_q_quantization: true',
      'speculative-config:',
      '  method: mtp',
      '  model: google/gemma-4-31B-it-assistant',
      '  num_speculative_tokens: 7',
      '',
    ].join('\n'),
  );
  const yamlForm = await lintVariant(
    () => 'exec vllm serve nvidia/Gemma-4-31B-IT-NVFP4 --config serve-config.yaml\n',
  );
  assert.equal(definite(jsonForm).length, 1);
  assert.deepEqual(statuses(dotted), statuses(jsonForm));
  assert.deepEqual(statuses(yamlForm), statuses(jsonForm));
  // the YAML form points into the YAML file, at the speculative-config key
  const loc = definite(yamlForm)[0].location;
  assert.match(loc.file, /serve-config\.yaml$/);
  assert.equal(loc.line, 5);
});

test('the same launch in a Kubernetes Deployment (exec and sh -c), production-stack values and compose reports FL001 at the right line', async () => {
  for (const name of [
    'k8s-deployment-exec.yaml',
    'k8s-deployment-sh-c.yaml',
    'production-stack-values.yaml',
    'compose.yaml',
  ]) {
    const text = readFileSync(join(seed, name), 'utf8');
    const gpu = name === 'compose.yaml' ? ['--gpu', 'NVIDIA B200'] : [];
    const r = await lint([join('seed', name), '--model-config', modelConfig, ...gpu, '--format', 'json']);
    assert.equal(r.code, 1, `${name}: ${r.err}`);
    const f = definite(r)[0];
    assert.ok(f, `${name}: FL001 as an error (${JSON.stringify(fl001(r).map((x) => x.message))})`);
    assert.equal(f.location.file, join('seed', name));
    assert.equal(f.location.line, lineOf(text, '--speculative-config'), name);
  }
});

test('the Kubernetes nodeSelector supplies the GPU when --gpu is not given', async () => {
  const r = await lint([
    join('seed', 'k8s-deployment-exec.yaml'),
    '--model-config',
    modelConfig,
    '--format',
    'json',
  ]);
  const f = definite(r)[0];
  assert.equal(f?.conditions.find((c) => c.name === 'gpu-sm100-family')?.status, 'met');
});

test('a launch after -- is linted like a file', async () => {
  const r = await lint([
    '--model-config',
    modelConfig,
    '--gpu',
    'sm100',
    '--format',
    'json',
    '--',
    'vllm',
    'serve',
    'nvidia/Gemma-4-31B-IT-NVFP4',
    '--attention-backend',
    'FLASHINFER',
    '--kv-cache-dtype',
    'fp8_e4m3',
    '--attention-config',
    '{"disable_flashinfer_q_quantization": true}',
    '--speculative-config',
    '{"method": "mtp", "num_speculative_tokens": 7}',
  ]);
  assert.equal(r.code, 1, r.err);
  assert.equal(definite(r).length, 1);
});

test('text output is ESLint-style, SARIF output validates; a clean launch exits 0', async () => {
  const text = await lint([join('seed', 'serve.sh'), '--model-config', modelConfig, '--gpu', 'B200']);
  assert.equal(text.code, 1);
  assert.match(
    text.out,
    new RegExp(`^seed/serve\\.sh:${lineOf(serveSh, '--speculative-config')}:\\d+ {2}error {2}FL001 \\[reproduced, not yet confirmed upstream\\] `, 'm'),
  );
  const sarif = await lint([
    join('seed', 'serve.sh'),
    '--model-config',
    modelConfig,
    '--gpu',
    'B200',
    '--format',
    'sarif',
  ]);
  const log = JSON.parse(sarif.out) as {
    version: string;
    runs: { results: { ruleId: string; level: string }[] }[];
  };
  const schema = JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/sarif-schema-2.1.0.json'), 'utf8'));
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  assert.ok(validate(log), JSON.stringify(validate.errors));
  assert.ok(
    log.runs[0].results.some(
      (r: { ruleId: string; level: string }) => r.ruleId === 'FL001' && r.level === 'error',
    ),
  );
  const clean = join(work, 'clean.sh');
  writeFileSync(clean, 'vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n');
  const dense = JSON.stringify({
    model_type: 'llama',
    num_hidden_layers: 4,
    architectures: ['LlamaForCausalLM'],
  });
  writeFileSync(join(work, 'llama-config.json'), dense);
  const ok = await lint([
    clean,
    '--model-config',
    join(work, 'llama-config.json'),
    '--gpu',
    'H100',
    '--vllm-version',
    '0.23.0',
    '--flashinfer-version',
    '0.6.18',
  ]);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /no known hazard in 1 launch/);
});

test('FL002 reads the checkpoint’s scales: tiny-swa-qscale (q_scale ≠ 1) fires, tiny-swa (k/v scales only, auto prefill) does not', async () => {
  const flags = [
    '--attention-backend',
    'FLASHINFER',
    '--attention-config',
    '{"disable_flashinfer_q_quantization": true}',
  ];
  const withQ = await lint([
    '--gpu',
    'B200',
    '--format',
    'json',
    '--',
    'vllm',
    'serve',
    join(repoRoot, 'models/tiny-swa-qscale'),
    ...flags,
  ]);
  const fl002 = withQ.json?.findings.find((f) => f.hazardId === 'FL002');
  assert.equal(fl002?.severity, 'warning', withQ.err);
  assert.equal(fl002?.possibly, false, withQ.err);
  assert.match(
    fl002?.conditions.find((c) => c.name === 'checkpoint-scales-not-one')?.detail ?? '',
    /6 of 6 layers carry q_scale ≠ 1/,
  );
  const kvOnly = await lint([
    '--gpu',
    'B200',
    '--format',
    'json',
    '--',
    'vllm',
    'serve',
    join(repoRoot, 'models/tiny-swa'),
    ...flags,
  ]);
  assert.equal(
    kvOnly.json?.findings.find((f) => f.hazardId === 'FL002'),
    undefined,
    kvOnly.out,
  );
});

test('lint reads the trained model: models/tiny-swa has 5 sliding layers of 6, window 128, FP8 KV declared by the checkpoint', async () => {
  const r = await lint([
    '--gpu',
    'B200',
    '--format',
    'json',
    '--',
    'vllm',
    'serve',
    join(repoRoot, 'models/tiny-swa'),
  ]);
  const facts = (r.json?.deployments[0] as { modelFacts?: Record<string, unknown> } | undefined)?.modelFacts;
  assert.ok(facts, r.err);
  assert.deepEqual(facts.layers, { total: 6, sliding: 5, full: 1, chunked: 0, linear: 0 });
  assert.equal(facts.window, 128);
  assert.equal(facts.kvDtypeFromCheckpoint, 'fp8_e4m3');
  assert.deepEqual(facts.scales, { q: false, k: true, v: true });
});

test('--explain FL001 prints the committed docs page', async () => {
  const r = await lint(['--explain', 'FL001']);
  assert.equal(r.code, 0);
  assert.equal(r.out, readFileSync(join(repoRoot, 'docs/hazards/FL001.md'), 'utf8'));
  const bad = await lint(['--explain', 'FL999']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /no hazard "FL999"[\s\S]*hint: known hazards: FL000 \(flag-not-accepted\), FL001/);
});

test('malformed input exits 2 with file:line:col and a hint, never a stack trace', async () => {
  const cases: [string, string, RegExp][] = [
    [
      'bad-json.sh',
      `vllm serve m \\\n  --speculative-config '{"method": "mtp", "num_speculative_tokens": }'\n`,
      /bad-json\.sh:2:\d+: /,
    ],
    [
      'broken.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nspec: [\n  unclosed: {\n',
      /broken\.yaml:\d+:\d+: /,
    ],
  ];
  for (const [name, text, where] of cases) {
    writeFileSync(join(work, name), text);
    const r = await lint([name, '--gpu', 'B200']);
    assert.equal(r.code, 2, `${name}: ${r.out}`);
    assert.match(r.err, /^error: /, name);
    assert.match(r.err, where, `${name}: ${r.err}`);
    assert.match(r.err, /\nhint: /, name);
    assert.doesNotMatch(r.err, /at .*\.ts:\d+/, name);
  }
  // An unknown flag or an ambiguous abbreviation is not an input error: FL000, and the rest is checked.
  writeFileSync(join(work, 'unknown-flag.sh'), 'vllm serve m --kv-cache-dtyp fp8 --frobnicate 3 --kv-cache-dtype fp8\n');
  const flagged = await lint(['unknown-flag.sh', '--gpu', 'B200', '--vllm-version', '0.27.1', '--format', 'json']);
  assert.equal(flagged.code, 1, flagged.err);
  const report = JSON.parse(flagged.out) as { findings: { hazardId: string; conditions: { detail: string }[] }[]; deployments: { args: Record<string, unknown> }[] };
  const fl000 = report.findings.find((f) => f.hazardId === 'FL000');
  assert.match(fl000?.conditions[0].detail ?? '', /--kv-cache-dtyp is an ambiguous abbreviation.*--frobnicate/);
  assert.equal(report.deployments[0].args.kv_cache_dtype, 'fp8');
  const missing = await lint(['no-such-file.sh']);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no-such-file\.sh/);
  assert.match(missing.err, /\nhint: /);
  writeFileSync(join(work, 'not-json.json'), '{\n  "model_type": "llama",\n  oops\n}\n');
  const notJson = await lint([join('seed', 'serve.sh'), '--model-config', 'not-json.json']);
  assert.equal(notJson.code, 2);
  assert.match(notJson.err, /not-json\.json:3:\d+: /);
  assert.match(notJson.err, /\nhint: /);
});

test('usage errors: nothing to lint, an unknown format', async () => {
  const none = await lint([]);
  assert.equal(none.code, 2);
  assert.match(none.err, /nothing to lint[\s\S]*hint:/);
  const fmt = await lint([join('seed', 'serve.sh'), '--format', 'xml']);
  assert.equal(fmt.code, 2);
  assert.match(fmt.err, /unknown output format "xml"[\s\S]*hint: use one of: text, json, sarif/);
});

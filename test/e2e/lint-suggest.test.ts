/**
 * `lint --suggest` and `lint --catalog` through the CLI. The acceptance: the seed launch's suggestions,
 * each written into the file at the region it names, give launches that lint clean of FL001 — for the
 * shell script and for the same launch as Kubernetes args, a Compose command, a `sh -c` literal block
 * and production-stack extraArgs.
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
import type { JsonReport, JsonSuggestion } from '../../src/hazards/formatters/json.js';
import { hazards } from '../../src/hazards/index.js';
import { repoRoot, runCli } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'faultline-suggest-e2e-'));
cpSync(join(repoRoot, 'examples/seed-b200'), join(work, 'seed'), { recursive: true });
const facts = ['--model-config', join(work, 'seed/config.json'), '--gpu', 'NVIDIA B200'];

async function lint(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO({ cwd: work });
  const code = await main(['lint', ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

async function lintJson(args: string[]): Promise<JsonReport> {
  const r = await lint(['--format', 'json', ...args]);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  return JSON.parse(r.out) as JsonReport;
}

/** `text` with the region [start, end) (1-based line and column) replaced by `insert`. */
function splice(text: string, s: JsonSuggestion): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; column: number }) =>
    lines.slice(0, p.line - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;
  assert.ok(s.replaces, `${s.remedyId}: a region to replace`);
  return text.slice(0, offset(s.replaces.start)) + s.text + text.slice(offset(s.replaces.end));
}

let n = 0;
for (const [file, form] of [
  ['serve.sh', 'shell'],
  ['k8s-deployment-exec.yaml', 'yaml-list'],
  ['compose.yaml', 'yaml-list'],
  ['k8s-deployment-sh-c.yaml', 'shell'],
  ['production-stack-values.yaml', 'yaml-list'],
] as const)
  test(`acceptance: every FL001 suggestion for seed-b200/${file}, written into the file, lints clean of FL001`, async () => {
    const path = join(work, 'seed', file);
    const report = await lintJson([path, ...facts, '--suggest']);
    const mine = (report.suggestions ?? []).filter((s) => s.hazardId === 'FL001');
    const fl001 = hazards.find((h) => h.id === 'FL001');
    assert.deepEqual(
      mine.map((s) => s.remedyId),
      fl001?.remedies.map((r) => r.id),
      'one suggestion per FL001 remedy, by id',
    );
    const original = readFileSync(path, 'utf8');
    for (const s of mine) {
      assert.equal(s.form, form, s.remedyId);
      assert.deepEqual(s.instructions, [], `${s.remedyId} needs nothing outside the launch`);
      const fixed = join(work, `fixed-${n++}-${file}`);
      writeFileSync(fixed, splice(original, s));
      const again = await lintJson([fixed, ...facts]);
      assert.equal(again.deployments.length, 1, `${s.remedyId}: still one launch`);
      const left = again.findings.filter((f) => f.hazardId === 'FL001');
      assert.deepEqual(left, [], `${s.remedyId} must clear FL001:\n${s.text}`);
    }
  });

test('the text form names the region and prints the rewritten launch; the real CLI exits 1 (findings)', async () => {
  const r = await runCli(['lint', 'examples/seed-b200/serve.sh', ...facts, '--suggest']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^Suggested launches \(each one alone clears its hazard\):$/m);
  assert.match(
    r.stdout,
    /^examples\/seed-b200\/serve\.sh:9:6 {2}FL001 bf16-kv-cache {2}--kv-cache-dtype bfloat16\n {4}replace 9:6–13:116 \(the launch\) with:\n {6}vllm serve nvidia\/Gemma-4-31B-IT-NVFP4 \\\n {8}--attention-backend FLASHINFER \\\n {8}--kv-cache-dtype bfloat16 \\$/m,
  );
});

test('a remedy that needs a release says so; a launch after -- gets a shell line without a region', async () => {
  const report = await lintJson([
    '--gpu',
    'B200',
    '--flashinfer-version',
    '0.6.16',
    '--suggest',
    '--',
    'vllm',
    'serve',
    'google/gemma-4-31B-it',
    '--attention-backend',
    'FLASHINFER',
    '--speculative-config',
    '{"method": "mtp", "num_speculative_tokens": 5}',
  ]);
  const up = report.suggestions?.find((s) => s.hazardId === 'FL003' && s.remedyId === 'upgrade-flashinfer');
  assert.ok(up);
  assert.equal(up.form, 'argv');
  assert.equal(up.replaces, undefined);
  assert.deepEqual(
    up.instructions.map((i) => i.message),
    ['run flashinfer-python ≥ 0.6.18rc2'],
  );
  const k3 = report.suggestions?.find(
    (s) => s.hazardId === 'FL003' && s.remedyId === 'at-most-3-draft-tokens',
  );
  assert.equal(
    k3?.text,
    `vllm serve google/gemma-4-31B-it --attention-backend FLASHINFER --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`,
  );
});

test('SARIF with --suggest validates and carries each placeable remedy as a fix', async () => {
  const r = await lint([join(work, 'seed/serve.sh'), ...facts, '--suggest', '--format', 'sarif']);
  const log = JSON.parse(r.out) as {
    runs: { results: { ruleId: string; fixes?: { description: { text: string } }[] }[] }[];
  };
  const schema = JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/sarif-schema-2.1.0.json'), 'utf8'));
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  assert.ok(validate(log), JSON.stringify(validate.errors));
  const fl001 = log.runs[0].results.find((x) => x.ruleId === 'FL001');
  assert.deepEqual(
    fl001?.fixes?.map((f) => f.description.text.split(':')[0]),
    hazards.find((h) => h.id === 'FL001')?.remedies.map((x) => x.id),
  );
});

test('--catalog lists every hazard with engines, severity, confidence and version bounds (text and JSON)', async () => {
  const text = await lint(['--catalog']);
  assert.equal(text.code, 0);
  assert.match(text.out, /^faultline hazard catalog \d+: \d+ hazards$/m);
  assert.match(text.out, /^id +alias +engines +severity +confidence +gpu +vllm +flashinfer$/m);
  assert.match(
    text.out,
    /^FL003 +trtllm-gen-multitoken-reduction-index +vllm +error +confirmed +sm100-family +— +reported from 0\.6\.14, < 0\.6\.18rc2$/m,
  );
  for (const h of hazards) assert.match(text.out, new RegExp(`^${h.id} +${h.alias} `, 'm'));
  const json = JSON.parse((await lint(['--catalog', '--format', 'json'])).out) as {
    catalogVersion: number;
    hazards: {
      id: string;
      engines: string[];
      confidence: string;
      severity: string;
      versions: Record<string, unknown>;
    }[];
  };
  assert.equal(json.hazards.length, hazards.length);
  const fl003 = json.hazards.find((h) => h.id === 'FL003');
  assert.deepEqual(fl003?.versions, {
    flashinfer: {
      firstReported: '0.6.14',
      fixed: '0.6.18rc2',
      record: 'reported from 0.6.14 (flashinfer#3929); fixed in 0.6.18rc2 by PR #4382',
    },
  });
  for (const h of json.hazards) if (h.confidence === 'reported') assert.equal(h.severity, 'warning', h.id);
  const bad = await lint(['--catalog', '--format', 'sarif']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--catalog prints text or json/);
});

test('a vLLM --config file gets the launch with command-line overrides, never a region inside the YAML', async () => {
  const config = join(work, 'serve-config.yaml');
  writeFileSync(config, 'model: meta-llama/Llama-3.1-8B-Instruct\nkv-cache-dtype: fp8\n');
  const report = await lintJson([
    config,
    '--gpu',
    'NVIDIA H100 80GB HBM3',
    '--vllm-version',
    '0.11.0',
    '--suggest',
  ]);
  const s = report.suggestions?.find((x) => x.hazardId === 'FL026' && x.remedyId === 'bf16-kv-cache');
  assert.ok(s, JSON.stringify(report.suggestions?.map((x) => x.hazardId)));
  assert.equal(s.form, 'argv');
  assert.equal(s.replaces, undefined);
  assert.match(s.text, /^vllm serve --config \S+serve-config\.yaml --kv-cache-dtype auto$/);
});

/**
 * SGLang launches end to end: the real public launch files of test/fixtures/wild/sglang/ (provenance
 * in its SOURCES.md) are read as their expectations row says — roles, model, flags after SGLang's
 * rewrites, GPU, version — and `lint` (in process, through the CLI's main) finds the B200 example's
 * hazard and writes SARIF that validates against the SARIF 2.1.0 schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { main } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { loadLaunchFiles } from '../../src/deployment/load.js';
import { repoRoot } from '../helpers/cli.js';

const wild = join(repoRoot, 'test/fixtures/wild/sglang');

interface Expected {
  role?: string;
  model: string | null;
  args: Record<string, unknown>;
  rewritten: string[];
  gpu: number | null;
  sglang: string | null;
  refusals: number;
}
const expectations = JSON.parse(readFileSync(join(wild, 'expectations.json'), 'utf8')) as Record<
  string,
  Expected[]
>;
const sources = readFileSync(join(wild, 'SOURCES.md'), 'utf8');

test('at least 15 real SGLang launch files, each with a provenance row and an expectations row', () => {
  const files = readdirSync(wild).filter((f) => f !== 'SOURCES.md' && f !== 'expectations.json');
  assert.ok(files.length >= 15, `${files.length} files`);
  for (const f of files) {
    assert.match(
      sources,
      new RegExp(
        `\\| \`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` \\| [^|]+ \\| \`[^\`]+\` \\| \`[0-9a-f]{40}\` \\|`,
      ),
      `${f} has no provenance row`,
    );
    assert.ok(expectations[f], `${f} has no expectations row`);
  }
});

for (const [file, expected] of Object.entries(expectations)) {
  test(`wild SGLang launch ${file} reads as expected`, () => {
    const { deployments } = loadLaunchFiles([join(wild, file)], { cwd: repoRoot });
    assert.equal(deployments.length, expected.length, 'number of launches');
    deployments.forEach((d, i) => {
      const e = expected[i];
      assert.equal(d.engine, 'sglang');
      assert.equal(d.source.object, e.role);
      assert.equal(d.model?.value ?? null, e.model);
      for (const [k, v] of Object.entries(e.args)) assert.deepEqual(d.args.get(k)?.value, v, `${k}`);
      assert.deepEqual(
        (d.sglang?.rewrites ?? []).map((r) => r.field),
        e.rewritten,
      );
      assert.equal(d.gpu?.value.sm ?? null, e.gpu);
      assert.equal(d.versions.sglang?.value ?? null, e.sglang);
      // What SGLang refuses: malformed input (a note) and what its table lacks (flag problems, FL000).
      assert.equal(
        d.notes.filter((n) => n.value.startsWith('SGLang refuses')).length + (d.flagProblems?.length ?? 0),
        e.refusals,
      );
    });
  });
}

async function lint(args: string[]) {
  const io = memoryIO({ cwd: repoRoot });
  const code = await main(['lint', ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const b200Launch = [
  'python3',
  '-m',
  'sglang.launch_server',
  '--model-path',
  'meta-llama/Llama-3.1-70B-Instruct-FP8',
  '--tp',
  '4',
  '--kv-cache-dtype',
  'fp8_e4m3',
];

test('an SGLang launch on a B200 without --attention-backend: with the model config SGLang 0.5.6 picks trtllm_mha, so FL208 fires definitely; without it the backend is unknown (real CLI main)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-sglang-'));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      architectures: ['LlamaForCausalLM'],
      model_type: 'llama',
      num_hidden_layers: 80,
      num_attention_heads: 64,
      hidden_size: 8192,
    }),
  );
  const withModel = await lint([
    '--gpu',
    'B200',
    '--sglang-version',
    '0.5.6.post2',
    '--model-config',
    join(dir, 'config.json'),
    '--format',
    'json',
    '--',
    ...b200Launch,
  ]);
  assert.equal(withModel.code, 1, withModel.err);
  const json = JSON.parse(withModel.out) as {
    findings: { hazardId: string; possibly: boolean; conditions: { name: string; status: string }[] }[];
    deployments: {
      engine: string;
      args: Record<string, unknown>;
      sglangRewrites: { field: string; to: unknown }[];
    }[];
  };
  assert.equal(json.deployments[0].engine, 'sglang');
  assert.equal(json.deployments[0].args.tp_size, 4, '--tp is a prefix of --tp-size');
  assert.deepEqual(
    json.deployments[0].sglangRewrites.find((r) => r.field === 'attention_backend')?.to,
    'trtllm_mha',
  );
  assert.deepEqual(
    json.deployments[0].sglangRewrites.find((r) => r.field === 'page_size')?.to,
    64,
    'trtllm_mha forces page size 64',
  );
  const fl208 = json.findings.find((f) => f.hazardId === 'FL208');
  assert.equal(fl208?.possibly, false);
  const without = JSON.parse(
    (
      await lint([
        '--gpu',
        'B200',
        '--sglang-version',
        '0.5.6.post2',
        '--format',
        'json',
        '--',
        ...b200Launch,
      ])
    ).out,
  ) as typeof json;
  const possibly = without.findings.find((f) => f.hazardId === 'FL208');
  assert.equal(possibly?.possibly, true);
  assert.equal(possibly?.conditions.find((c) => c.name === 'trtllm-mha-backend')?.status, 'unknown');
});

test('lint --format sarif for an SGLang launch validates against the SARIF 2.1.0 schema', async () => {
  const r = await lint([
    '--gpu',
    'B200',
    '--sglang-version',
    '0.5.6.post2',
    '--format',
    'sarif',
    '--',
    ...b200Launch,
    '--attention-backend',
    'trtllm_mha',
  ]);
  assert.equal(r.code, 1, r.err);
  const log = JSON.parse(r.out) as { runs: { results: { ruleId: string; level: string }[] }[] };
  const schema = JSON.parse(
    readFileSync(join(repoRoot, 'test/fixtures/sarif-schema-2.1.0.json'), 'utf8'),
  ) as object;
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  assert.ok(validate(log), JSON.stringify(validate.errors));
  assert.ok(
    log.runs[0].results.some((x) => x.ruleId === 'FL208' && x.level === 'error'),
    'FL208 as an error',
  );
});

test('the wild files all lint without an error exit (findings are warnings at most without GPU and model)', async () => {
  const files = Object.keys(expectations).map((f) => join(wild, f));
  const r = await lint([...files, '--format', 'json']);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  const json = JSON.parse(r.out) as { findings: { severity: string; possibly: boolean }[] };
  assert.ok(
    json.findings.every((f) => f.possibly),
    'no definite finding without a GPU or model facts',
  );
});

test('examples/sglang-b200: serve.sh and k8s.yaml fire FL208 definitely (GPU from the node selector, version from the image tag); the matrix plan loads', async () => {
  const ex = (f: string) => join(repoRoot, 'examples/sglang-b200', f);
  const sh = await lint([
    ex('serve.sh'),
    '--model-config',
    ex('config.json'),
    '--gpu',
    'B200',
    '--sglang-version',
    '0.5.6.post2',
    '--format',
    'json',
  ]);
  const k8s = await lint([ex('k8s.yaml'), '--model-config', ex('config.json'), '--format', 'json']);
  for (const r of [sh, k8s]) {
    assert.equal(r.code, 1, r.err);
    const json = JSON.parse(r.out) as { findings: { hazardId: string; possibly: boolean }[] };
    assert.ok(
      json.findings.some((f) => f.hazardId === 'FL208' && !f.possibly),
      r.out,
    );
  }
  const dry = await main(['matrix', ex('matrix.yaml'), '--dry-run'], memoryIO({ cwd: repoRoot }));
  assert.equal(dry, 0);
});

/**
 * One conformance suite for the three formatters over the same findings: the canonical FL001
 * finding, a "possibly affected" warning, and a clean run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { lintDeployments, splitBySignal } from '../evaluate.js';
import { hazards } from '../index.js';
import {
  buildDeployment,
  canonicalOptions,
  TEST_FILE,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { formatJson, toJsonReport } from './json.js';
import { formatSarif, toSarif, artifactUri } from './sarif.js';
import { formatText } from './text.js';

const canonical = buildDeployment({
  ...canonicalOptions(),
  env: { VLLM_LOGGING_LEVEL: 'DEBUG', HF_TOKEN: 'hf_secret' },
});
canonical.args.set('api_key', { value: 'sk-secret', at: { file: TEST_FILE, line: 9, column: 3 } });
canonical.args.set('max_num_batched_tokens', { value: 8192, at: { file: TEST_FILE, line: 10, column: 3 } });
const possibly = buildDeployment({ ...canonicalOptions(), gpu: undefined });
possibly.source = { file: 'k8s/deploy.yaml', kind: 'kubernetes', object: 'Deployment/gemma/container vllm' };
const deployments = [canonical, possibly];
const findings = lintDeployments(deployments);

test('JSON has exactly the specified finding shape', () => {
  const report = JSON.parse(formatJson(findings, deployments)) as ReturnType<typeof toJsonReport>;
  const fl001 = report.findings.find((f) => f.hazardId === 'FL001' && !f.possibly);
  assert.ok(fl001);
  assert.deepEqual(Object.keys(fl001), [
    'hazardId',
    'alias',
    'engines',
    'confidence',
    'severity',
    'possibly',
    'message',
    'location',
    'conditions',
    'remedies',
    'nonRemedies',
    'references',
  ]);
  assert.deepEqual(fl001.location, { file: TEST_FILE, line: 5, column: 3 });
  assert.ok(
    fl001.conditions.every((c) => c.status === 'met' && Object.keys(c).join() === 'name,status,detail'),
  );
  assert.ok(fl001.remedies.length > 0 && fl001.nonRemedies.length > 0 && fl001.references.length > 0);
  assert.deepEqual(fl001.engines, ['vllm']);
  assert.equal(fl001.confidence, 'reproduced');
  assert.equal(fl001.severity, 'error', 'a reproduced hazard may be an error');
  assert.deepEqual(fl001.remedies[1], {
    id: 'bf16-kv-cache',
    change: '--kv-cache-dtype bfloat16',
    edit: { set: { kv_cache_dtype: 'bfloat16' } },
    why: fl001.remedies[1].why,
  });
  const warn = report.findings.find((f) => f.hazardId === 'FL001' && f.possibly);
  assert.ok(warn?.conditions.some((c) => c.status === 'unknown'));
});

test('JSON deployments are summarised, with credentials redacted and irrelevant env left out', () => {
  const report = toJsonReport(findings, deployments);
  const d = report.deployments[0];
  assert.equal(d.model, 'nvidia/Gemma-4-31B-IT-NVFP4');
  assert.equal(d.args.kv_cache_dtype, 'fp8_e4m3');
  assert.equal(d.args.api_key, '<redacted>');
  // An ordinary argument whose name mentions tokens is shown as it is.
  assert.equal(d.args.max_num_batched_tokens, 8192);
  assert.deepEqual(d.env, { VLLM_LOGGING_LEVEL: 'DEBUG' });
  assert.deepEqual(d.gpu, { name: 'NVIDIA B200', sm: 100 });
  assert.deepEqual(d.modelFacts?.layers, { total: 60, sliding: 50, full: 10, chunked: 0, linear: 0 });
  assert.equal(d.modelFacts?.kvDtypeFromCheckpoint, 'fp8_e4m3');
  assert.equal(report.deployments[1].source.object, 'Deployment/gemma/container vllm');
  assert.doesNotMatch(JSON.stringify(report), /sk-secret|hf_secret/);
});

test('text: ESLint-style lines, conditions, remedies, and a summary line; no colour codes when off', () => {
  const out = formatText(findings, { color: false, launches: 2, hazards: hazards.length });
  assert.match(
    out,
    /^launch\.sh:5:3 {2}error {2}FL001 \[reproduced, not yet confirmed upstream\] speculative decoding verified on trtllm-gen .* {2}\(swa-specdec-bf16q-fp8kv-trtllm\)$/m,
  );
  assert.match(out, /^ {4}✓ fp8-kv-cache: --kv-cache-dtype fp8_e4m3: FP8 E4M3$/m);
  assert.match(
    out,
    /^launch\.sh:5:3 {2}warning {2}FL001 \[reproduced, not yet confirmed upstream\] possibly affected: speculative decoding .*\)$/m,
  );
  assert.match(out, /^ {4}\? gpu-sm100-family: no GPU given/m);
  assert.match(out, /^ {4}9 other conditions met$/m);
  assert.match(out, /^ {4}fix: --kv-cache-dtype bfloat16 \[bf16-kv-cache\] — /m);
  assert.match(out, /^ {4}not a fix: --enforce-eager \[enforce-eager\] — /m);
  const errors = findings.filter((f) => f.severity === 'error').length;
  assert.match(
    out,
    new RegExp(
      `✖ ${findings.length} problems \\(${errors} errors?, ${findings.length - errors} warnings?\\) in 2 launches\\n`,
    ),
  );
  assert.match(out, /\n {2}\d+ of them only possibly apply: facts are missing/);
  const esc = String.fromCharCode(27);
  assert.ok(!out.includes(esc + '['), 'no ANSI escapes');
  assert.ok(formatText(findings, { color: true, launches: 2, hazards: 10 }).includes(`${esc}[33mwarning`));
  assert.equal(
    formatText([], { color: false, launches: 1, hazards: 10 }),
    '✓ no known hazard in 1 launch (10 hazards checked)\n',
  );
});

test('text: parser notes follow the findings, once each, with their location', () => {
  const note = {
    value: 'VLLM_ATTENTION_BACKEND is ignored',
    at: { file: 'launch.sh', line: 100, column: 8 },
  };
  const out = formatText([], {
    color: false,
    launches: 1,
    hazards: 10,
    notes: [note, note, { value: 'no location' }],
  });
  assert.equal(
    out,
    'launch.sh:100:8  note  VLLM_ATTENTION_BACKEND is ignored\nnote  no location\n\n✓ no known hazard in 1 launch (10 hazards checked)\n',
  );
});

test('SARIF validates against the official 2.1.0 schema (draft-04) and carries rules, regions and fingerprints', () => {
  const schema = JSON.parse(
    readFileSync(new URL('../../../test/fixtures/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
  );
  // Both packages are CommonJS: under NodeNext the class and the plugin are their `default` exports.
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  for (const list of [findings, []]) {
    const log = JSON.parse(formatSarif(list));
    assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
  }
  const log = toSarif(findings);
  const run = log.runs[0];
  assert.equal(run.tool.driver.rules?.length, hazards.length);
  assert.match(
    run.tool.driver.rules?.find((x) => x.id === 'FL001')?.helpUri ?? '',
    /^file:\/\/.*\/docs\/hazards\/FL001\.md$/,
  );
  const r = run.results?.find((x) => x.ruleId === 'FL001' && !x.message.text?.startsWith('possibly'));
  assert.equal(r?.level, 'error');
  assert.deepEqual(r?.locations?.[0].physicalLocation?.region, { startLine: 5, startColumn: 3 });
  assert.equal(r?.locations?.[0].physicalLocation?.artifactLocation?.uri, 'launch.sh');
  assert.equal(run.tool.driver.rules?.[r?.ruleIndex ?? -1].id, 'FL001');
  assert.match(r?.partialFingerprints?.['faultlineFinding/v1'] ?? '', /^[0-9a-f]{32}$/);
});

test('SARIF fingerprints ignore line moves but tell launches apart', () => {
  const moved = buildDeployment(canonicalOptions());
  moved.args.set('speculative_config', {
    ...moved.args.get('speculative_config')!,
    at: { file: TEST_FILE, line: 40, column: 3 },
  });
  const fp = (ds: typeof deployments) =>
    toSarif(lintDeployments(ds)).runs[0].results?.find((x) => x.ruleId === 'FL001')?.partialFingerprints?.[
      'faultlineFinding/v1'
    ];
  assert.equal(fp([moved]), fp([buildDeployment(canonicalOptions())]));
  assert.notEqual(fp([possibly]), fp([buildDeployment(canonicalOptions())]));
});

test('artifact URIs: relative paths keep slashes, odd names are percent-encoded, absolute paths become file URIs', () => {
  assert.equal(artifactUri('examples/seed-b200/serve.sh'), 'examples/seed-b200/serve.sh');
  assert.equal(artifactUri('<argv>'), '%3Cargv%3E');
  assert.equal(artifactUri('/tmp/a b.sh'), 'file:///tmp/a%20b.sh');
});

test('hazards only facts not given could make apply: one text line, their own JSON key, SARIF level none (kind open)', () => {
  // A plain launch: no KV dtype, no speculation, no backend, no GPU or model config.
  const plain = buildDeployment({});
  const { findings: listed, dependOnFacts } = splitBySignal(lintDeployments([plain]));
  assert.ok(dependOnFacts.length > 0, 'some hazard depends only on facts not given');
  assert.ok(dependOnFacts.every((f) => f.possibly && f.dependsOnFactsOnly));
  const ids = [...new Set(dependOnFacts.map((f) => f.hazard.id))].sort();
  const text = formatText(listed, { color: false, launches: 1, hazards: 10, dependOnFacts });
  assert.match(
    text,
    new RegExp(
      `${ids.length} hazards depend on facts not given; --gpu, --model-config[^\\n]* and --flashinfer-version decide them \\(--possible lists them: ${ids.join(', ')}\\)`,
    ),
  );
  for (const id of ids) assert.doesNotMatch(text, new RegExp(`warning {2}${id} `), `${id} is not listed`);
  const json = toJsonReport(listed, [plain], [], undefined, { dependOnFacts });
  assert.equal(json.findings.length, listed.length);
  assert.deepEqual([...new Set(json.dependOnFacts?.hazards.map((h) => h.hazardId))].sort(), ids);
  assert.match(json.dependOnFacts?.summary ?? '', /depend on facts not given/);
  assert.equal(toJsonReport(listed, [plain]).dependOnFacts, undefined, 'absent when there are none');
  const log = toSarif(listed, { dependOnFacts });
  const pending = log.runs[0].results?.filter((r) => r.level === 'none') ?? [];
  assert.equal(pending.length, dependOnFacts.length);
  assert.ok(pending.every((r) => r.kind === 'open' && r.properties?.dependsOnFactsOnly === true));
  assert.match(String(log.runs[0].properties?.dependOnFacts), /depend on facts not given/);
  const schema = JSON.parse(
    readFileSync(new URL('../../../test/fixtures/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
  );
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
});

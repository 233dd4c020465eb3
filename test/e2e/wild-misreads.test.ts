/**
 * The classes of misread found on real launch files, each checked on real public files of
 * test/fixtures/wild (provenance in SOURCES.md): run-time values, JSON flags with a run-time key,
 * local arrays, Ray Serve's prefill/decode layout and YAML merge keys, YAML that is not a launch,
 * GPU candidates, the platform (ROCm), and model families read from names. Every file of the
 * misread section of SOURCES.md is also linted as SARIF and validated against the 2.1.0 schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { isUserError } from '../../src/core/errors.js';
import { formatOutcome, runLint } from '../../src/hazards/lint-run.js';
import type { Deployment } from '../../src/deployment/deployment.js';

const dir = fileURLToPath(new URL('../fixtures/wild/', import.meta.url));
// Every hazard that can apply (--possible): these tests are about what the facts rule out, not about
// which of the rest are listed and which are summed up in one line.
const lint = (file: string, possible = true) => runLint({ files: [file], cwd: dir, possible });
const fired = (file: string) => new Set<string>(lint(file).findings.map((f) => f.hazard.id));
const runtimeText = (d: Deployment, dest: string) =>
  (d.args.get(dest) as { runtime?: { text: string } } | undefined)?.runtime?.text;
const notes = (d: Deployment) => d.notes.map((n) => n.value).join('\n');

/** The files of SOURCES.md's misread section. */
const misreadFiles = readFileSync(`${dir}SOURCES.md`, 'utf8')
  .split('## Real files for the misread classes')[1]
  .split('\n')
  .flatMap((l) => /^\| (\S+) \| [\w.-]+\/[\w.-]+ \| /.exec(l)?.[1] ?? []);

/** The NVIDIA-only vLLM hazards that a launch with nothing known about its GPU reports as possible. */
const NVIDIA_ONLY = ['FL008', 'FL010', 'FL025', 'FL026', 'FL036', 'FL037', 'FL038'];

test('the misread section holds at least 30 real files, none refused', () => {
  assert.ok(misreadFiles.length >= 30, `${misreadFiles.length} files`);
  for (const file of misreadFiles) {
    try {
      const o = lint(file);
      assert.ok(o.deployments.length > 0, file);
      // No flag is refused outright; a key the tables lack for the launch's release is at most a possible FL000.
      assert.ok(
        !o.findings.some((f) => f.hazard.id === 'FL000' && !f.possibly),
        `${file}: no flag of it is refused`,
      );
    } catch (e) {
      // Only files that are not launches may end in an error, and it must say so.
      assert.ok(isUserError(e), `${file}: ${String(e)}`);
      assert.match(e.message, /not a launch|no launch found/, file);
    }
  }
});

test('run-time values: positional parameters and unset variables are values known at run time, never refused', () => {
  const [tutor] = lint('OpenTutorGym--scripts_start_server.sh').deployments;
  assert.equal(tutor.model?.value, '$1');
  assert.equal(runtimeText(tutor, 'port'), '$2');
  const [starter] = lint('ai-server--vllm-opt_starter.sh').deployments;
  for (const [dest, text] of [
    ['max_model_len', '$MODEL_LEN'],
    ['gpu_memory_utilization', '$MEM_USAGE'],
    ['cpu_offload_gb', '$OFFLOAD_CPU'],
  ])
    assert.equal(runtimeText(starter, dest), text, dest);
  const [rec] = lint('RecNet--serve_Qwen2.5-32B-Instruct.sh').deployments;
  assert.equal(runtimeText(rec, 'tensor_parallel_size'), "$(echo \"$GPU_ID\" | awk -F',' '{print NF}')");
  assert.equal(runtimeText(rec, 'port'), '$2');
});

test('run-time values: ${X:-default} in a SkyPilot run script uses the default, the caller may override it', () => {
  const [d] = lint(
    'nebius-ps-services--examples_skypilot_skypilot-inference_qwen72b-inference-vllm.yaml',
  ).deployments;
  assert.equal(d.versions.vllm?.value, '0.11.0', 'from resources.image_id: docker:vllm/vllm-openai:v0.11.0');
  assert.equal(d.args.get('tensor_parallel_size')?.value, 1);
  assert.match(notes(d), /SKYPILOT_NUM_GPUS_PER_NODE .*used its default "1" \(the caller may override it\)/);
  assert.deepEqual(d.args.get('compilation_config')?.value, { attention_backend: 'FLASH_ATTN' });
});

test('local arrays inside functions keep their elements (auto_tune.sh: "${common_args_array[@]}")', () => {
  const o = lint('vllm--benchmarks_auto_tune_auto_tune.sh');
  assert.equal(o.deployments.length, 6);
  for (const d of o.deployments) {
    assert.equal(d.model?.value, 'meta-llama/Llama-3.1-8B-Instruct');
    assert.equal(d.args.get('port')?.value, 8004);
    assert.equal(d.args.get('load_format')?.value, 'dummy');
    assert.ok(runtimeText(d, 'max_num_seqs'), 'a value from the caller stays a run-time value');
  }
});

test('a JSON flag built around a variable is read key by key (ssd: "model": "$DRAFT" set in the script)', () => {
  const [d] = lint('ssd--bench_launch_vllm_server.sh').deployments;
  const spec = d.args.get('speculative_config') as { value: Record<string, unknown>; runtime?: unknown };
  assert.equal(spec.runtime, undefined);
  assert.equal(spec.value.method, 'draft_model');
  assert.equal(spec.value.num_speculative_tokens, 5);
  assert.match(String(spec.value.model), /models--meta-llama--Llama-3\.2-1B-Instruct/);
});

test('Ray Serve LLM: prefill_config / decode_config are two launches with their roles, engine_kwargs and env_vars', () => {
  const [prefill, decode] = lint(
    'ray--release_llm_tests_serve_configs_serve_qwen3dot5_9b_quantized_tp1_2p6d.yaml',
  ).deployments;
  assert.deepEqual([prefill.role, decode.role], ['prefill', 'decode']);
  for (const d of [prefill, decode]) {
    assert.equal(d.model?.value, 'RedHatAI/Qwen3.5-9B-quantized.w4a16');
    assert.deepEqual(d.args.get('kv_transfer_config')?.value, {
      kv_connector: 'NixlConnector',
      kv_role: 'kv_both',
    });
    assert.equal(d.env.get('VLLM_SSM_CONV_STATE_LAYOUT')?.value, 'DS');
    assert.equal(d.gpu?.value.name, 'A10G');
  }
  const lmcache = lint(
    'ray--release_llm_tests_serve_configs_serve_llama_3dot1_8b_quantized_tp1_2p6d_lmcache.yaml',
  ).deployments;
  assert.deepEqual(
    lmcache.map((d) => (d.args.get('kv_transfer_config')?.value as { kv_role: string }).kv_role),
    ['kv_producer', 'kv_consumer'],
  );
});

test('YAML merge keys: decode_config `<<: *llm_config` carries the prefill engine_kwargs, located where they are written', () => {
  const [prefill, decode] = lint('ray--release_llm_tests_kv_router_test_serve_pd_kv_router.yaml').deployments;
  assert.equal(decode.role, 'decode');
  assert.equal(decode.model?.value, 'Qwen/Qwen3-0.6B');
  for (const dest of ['max_model_len', 'enforce_eager', 'gpu_memory_utilization', 'enable_prefix_caching'])
    assert.deepEqual(decode.args.get(dest)?.value, prefill.args.get(dest)?.value, dest);
  assert.equal(decode.args.get('max_model_len')?.at?.line, 18, 'at the anchored mapping');
  assert.equal(decode.env.get('RAY_SERVE_LLM_ENABLE_DECODE_BLOCK_PROGRESS')?.value, '1');
  assert.equal(prefill.env.get('RAY_SERVE_LLM_ENABLE_DECODE_BLOCK_PROGRESS'), undefined);
});

test('not a launch: a recipe’s model metadata YAML is exit 2 saying what it is, never a --config file with warnings', () => {
  for (const file of [
    'recipes--models_Qwen_Qwen3-8B.yaml',
    'recipes--models_deepseek-ai_DeepSeek-R1.yaml',
    'recipes--models_moonshotai_Kimi-K2-Instruct.yaml',
  ])
    assert.throws(
      () => lint(file),
      (e: Error) =>
        isUserError(e) &&
        /^not a launch: .* is a vLLM recipe's model metadata/.test(e.message) &&
        e.code === 'E_NOT_A_LAUNCH',
      file,
    );
  assert.throws(
    () => lint('ray--release_llm_tests_serve_configs_lmcache_prefiller.yaml'),
    (e: Error) => isUserError(e) && /no launch found/.test(e.message),
  );
  // The same repository's flag files are --config files.
  const [config] = lint('recipes--OpenAI_GPT-OSS_EAGLE3_Blackwell.yaml').deployments;
  assert.equal(config.source.kind, 'vllm-config');
  assert.equal((config.args.get('speculative_config')?.value as { method: string }).method, 'eagle3');
});

test('GPU candidates: a SkyPilot task listing T4 / L4 / A10g / A100 gets no hazard of a family none of them is in', () => {
  const o = lint('skypilot-training-demo--service.yaml');
  const [d] = o.deployments;
  assert.deepEqual(d.gpuCandidates?.map((g) => g.value.sm).sort(), [75, 80, 86, 89]);
  const ids = new Set<string>(o.findings.map((f) => f.hazard.id));
  for (const id of NVIDIA_ONLY) assert.ok(!ids.has(id), `${id} needs an SM90, SM100 or SM12x GPU`);
  // FL027 (cascade attention) is an A100 defect: possible, since one candidate is an A100.
  const fl027 = o.findings.find((f) => f.hazard.id === 'FL027');
  assert.equal(fl027?.possibly, true);
  assert.ok(
    fl027?.conditions.some((c) => c.status === 'unknown' && /possible on .*A100/.test(c.detail)),
    'names the candidate that allows it',
  );
});

test('platform: ROCm images, HIP / ROCm variables and aiter rule out NVIDIA-only hazards (vLLM and SGLang)', () => {
  for (const file of [
    'ATOM--test_plugin_test.0.6.tp8.sh',
    'InferenceMAX--benchmarks_gptoss_fp4_mi300x_docker.sh',
    'bench_vllm--0_server_prof.sh',
    'BestBox--scripts_run_vllm_strix.sh',
  ]) {
    const o = lint(file);
    assert.equal(o.deployments[0].platform?.value, 'rocm', file);
    const ids = new Set<string>(o.findings.map((f) => f.hazard.id));
    for (const id of NVIDIA_ONLY) assert.ok(!ids.has(id), `${file}: ${id}`);
  }
  assert.match(
    lint('BestBox--scripts_run_vllm_strix.sh').deployments[0].platform?.evidence ?? '',
    /vllm-openai-rocm:v0\.14\.1 is a ROCm build/,
  );
  const sgl = lint('InferenceMAX--benchmarks_dsr1_fp8_mi300x_docker.sh');
  assert.equal(sgl.deployments[0].engine, 'sglang');
  assert.equal(
    sgl.deployments[0].args.get('attention_backend')?.value,
    'aiter',
    "SGLang's default on a HIP build",
  );
  const ids = new Set<string>(sgl.findings.map((f) => f.hazard.id));
  for (const id of ['FL200', 'FL207', 'FL226']) assert.ok(!ids.has(id), id);
  // The same script shape on an NVIDIA launch keeps them possible.
  assert.ok(fired('OpenTutorGym--scripts_start_server.sh').has('FL008'));
});

test('model family from the name: a distilled Llama is not an MLA model, a run-time model name decides nothing', () => {
  const [korg] = lint('KORGym--game_lib_24-snake_script_DeepSeek-R1-Distill-Llama-70B.sh').deployments;
  assert.equal(korg.modelFamily?.value, 'llama');
  assert.equal(korg.modelFamily?.mla, false);
  assert.ok(!fired('KORGym--game_lib_24-snake_script_DeepSeek-R1-Distill-Llama-70B.sh').has('FL016'));
  const [cached] = lint('ssd--bench_launch_vllm_server.sh').deployments;
  assert.equal(cached.modelFamily?.value, 'llama', 'a Hugging Face cache path names its model');
  // A run-time model ($MODEL) decides nothing: the MLA hazard stays possible.
  assert.ok(fired('InferenceMAX--benchmarks_gptoss_fp4_mi300x_docker.sh').has('FL016'));
});

test('lint --format sarif validates against the SARIF 2.1.0 schema on every file of the misread section', () => {
  const schema = JSON.parse(
    readFileSync(new URL('../fixtures/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
  );
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  let checked = 0;
  for (const file of misreadFiles) {
    let outcome;
    try {
      outcome = lint(file, false); // as lint prints it: hazards that depend on facts at SARIF level none
    } catch (e) {
      if (isUserError(e)) continue; // not a launch: exit 2 with a message, no report
      throw e;
    }
    const log = JSON.parse(formatOutcome(outcome, 'sarif', { color: false, env: {} })) as unknown;
    assert.ok(validate(log), `${file}: ${JSON.stringify(validate.errors)}`);
    checked++;
  }
  assert.ok(checked >= 24, `${checked} SARIF logs`);
});

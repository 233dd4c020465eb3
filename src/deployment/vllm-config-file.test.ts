import { chooseFlagTable } from './vllm-flag-table.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { UserError } from '../core/errors.js';
import { tokensFromArgv } from './argv-token.js';
import { parseVllmCommand, argKeyAt, type VllmParse } from './vllm-args.js';
import { tokensFromYaml } from './vllm-config-file.js';

const here = dirname(fileURLToPath(import.meta.url));
const pairDir = join(here, '../../test/fixtures/launch-configs/pair-09-10');

/** Parse a command whose --config file is `yaml` (served from memory as /cfg/config.yaml). */
function withYaml(yaml: string, argv: string[]): VllmParse {
  return parseVllmCommand(tokensFromArgv(argv), {
    baseDir: '/cfg',
    readFile: (p) => {
      assert.equal(p, '/cfg/config.yaml');
      return yaml;
    },
  });
}
const values = (r: VllmParse): Record<string, unknown> =>
  Object.fromEntries([...r.args].map(([k, v]) => [k, v.value]));

function userError(fn: () => unknown): UserError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UserError, `expected UserError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a UserError');
}

test('the real vllm_config.yaml (fixture 09) with `vllm serve --config` (fixture 10) parses to the SOURCES.md facts', () => {
  const r = parseVllmCommand(
    tokensFromArgv(['vllm', 'serve', '--config', 'vllm_config.yaml'], 'start_vllm_server.sh'),
    { baseDir: pairDir },
  );
  const file = join(pairDir, 'vllm_config.yaml');
  assert.deepEqual(r.model, { value: '/data/lyl/models/qwen2.5-7B', at: { file, line: 3, column: 1 } });
  assert.deepEqual(values(r), {
    config: file,
    model: '/data/lyl/models/qwen2.5-7B',
    host: '0.0.0.0',
    port: 8000,
    uvicorn_log_level: 'info',
    dtype: 'auto',
    quantization: 'bitsandbytes',
    enforce_eager: true,
    enable_lora: true,
    tensor_parallel_size: 2,
    gpu_memory_utilization: 0.6,
  });
  assert.deepEqual(r.args.get('tensor_parallel_size')?.at, { file, line: 12, column: 1 });
  assert.deepEqual(r.notes, []);
});

test('the command line beats the YAML; a positional model beats the YAML model', () => {
  const r = withYaml('model: from-yaml\nkv-cache-dtype: fp8\ntensor-parallel-size: 4\n', [
    'vllm',
    'serve',
    'cli-model',
    '--config',
    'config.yaml',
    '--kv-cache-dtype',
    'bfloat16',
  ]);
  assert.equal(r.model?.value, 'cli-model');
  assert.equal(r.args.get('kv_cache_dtype')?.value, 'bfloat16');
  assert.equal(r.args.get('kv_cache_dtype')?.at?.column, 6);
  assert.deepEqual(r.args.get('tensor_parallel_size')?.at, { file: '/cfg/config.yaml', line: 3, column: 1 });
  assert.match(
    r.notes.map((n) => n.value).join('\n'),
    /--kv-cache-dtype on the command line overrides the --config file's value \(earlier: \/cfg\/config.yaml:2:1\)/,
  );
});

test('YAML true → --key, false → --no-key, mappings → JSON located per key, lists → nargs', () => {
  const yaml = [
    'enforce-eager: true',
    'enable-prefix-caching: false',
    'served-model-name: [a, b]',
    'speculative-config:',
    '  method: mtp',
    '  num_speculative_tokens: 7',
    'attention-config: {backend: FLASHINFER, disable_flashinfer_q_quantization: yes}',
  ].join('\n');
  const r = withYaml(yaml, ['vllm', 'serve', 'm', '--config', 'config.yaml']);
  assert.deepEqual(values(r), {
    config: '/cfg/config.yaml',
    model: 'm',
    enforce_eager: true,
    enable_prefix_caching: false,
    served_model_name: ['a', 'b'],
    speculative_config: { method: 'mtp', num_speculative_tokens: 7 },
    attention_config: { backend: 'FLASHINFER', disable_flashinfer_q_quantization: true },
  });
  assert.deepEqual(argKeyAt(r.args, 'speculative_config.num_speculative_tokens'), {
    file: '/cfg/config.yaml',
    line: 6,
    column: 3,
  });
  assert.deepEqual(argKeyAt(r.args, 'attention_config.disable_flashinfer_q_quantization'), {
    file: '/cfg/config.yaml',
    line: 7,
    column: 41,
  });
});

test('the YAML form equals the JSON and dotted forms', () => {
  const yaml = withYaml(
    'speculative-config: {method: mtp, num_speculative_tokens: 7}\nattention-config:\n  disable_flashinfer_q_quantization: true\n',
    ['vllm', 'serve', 'm', '--config', 'config.yaml'],
  );
  const cli = parseVllmCommand(
    tokensFromArgv([
      'vllm',
      'serve',
      'm',
      '--speculative-config',
      '{"method":"mtp","num_speculative_tokens":7}',
      '-ac.disable_flashinfer_q_quantization=true',
    ]),
    { baseDir: '.' },
  );
  for (const dest of ['speculative_config', 'attention_config'])
    assert.deepEqual(yaml.args.get(dest)?.value, cli.args.get(dest)?.value);
});

test('a JSON string in YAML (as InferenceMAX writes it) is parsed like the command-line form', () => {
  const r = withYaml(
    `compilation-config: '{"pass_config":{"fuse_allreduce_rms":true,"eliminate_noops":true}}'\nno-enable-prefix-caching: true\n`,
    ['vllm', 'serve', 'm', '--config', 'config.yaml'],
  );
  assert.deepEqual(r.args.get('compilation_config')?.value, {
    pass_config: { fuse_allreduce_rms: true, eliminate_noops: true },
  });
  assert.equal(r.args.get('enable_prefix_caching')?.value, false);
  // Python's str(2000.0) is "2000.0", which int() rejects: vLLM would fail, and so does faultline.
  assert.match(
    userError(() =>
      withYaml('tensor-parallel-size: 2.0\n', ['vllm', 'serve', 'm', '--config', 'config.yaml']),
    ).message,
    /invalid int value: '2.0'/,
  );
});

test('false is dropped when vLLM has no --no- option for the key as written, and faultline says why', () => {
  const r = withYaml(
    'enable_prefix_caching: false\nport: 8000\nmax-model-len: false\nserved-model-name: []\n',
    ['vllm', 'serve', 'm', '--config', 'config.yaml'],
  );
  assert.equal(r.args.has('enable_prefix_caching'), false);
  const text = r.notes.map((n) => n.value).join('\n');
  assert.match(text, /looks for the option --no-enable_prefix_caching literally/);
  assert.match(text, /max-model-len: false is dropped/);
  assert.match(text, /served-model-name: \[\] is dropped/);
});

test('config errors: syntax (file:line:col), not a mapping, wrong extension, missing file, two files', () => {
  const syntax = userError(() =>
    withYaml('port: 8000\nspeculative-config: {method: mtp\n', [
      'vllm',
      'serve',
      'm',
      '--config',
      'config.yaml',
    ]),
  );
  assert.equal(syntax.at?.file, '/cfg/config.yaml');
  assert.ok((syntax.at?.line ?? 0) >= 2);
  assert.match(syntax.message, /invalid YAML/);
  const list = userError(() => withYaml('- a\n- b\n', ['vllm', 'serve', 'm', '--config', 'config.yaml']));
  assert.match(list.message, /mapping/);
  assert.deepEqual(list.at, { file: '/cfg/config.yaml', line: 1, column: 1 });
  const ext = userError(() =>
    parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', '--config', 'c.json']), { baseDir: '.' }),
  );
  assert.equal(ext.at?.column, 5);
  const missing = userError(() =>
    parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', '--config', 'nope.yaml']), { baseDir: pairDir }),
  );
  assert.match(missing.message, /cannot read --config file/);
  assert.equal(missing.at?.column, 5);
  const two = userError(() =>
    withYaml('port: 1\n', ['vllm', 'serve', 'm', '--config', 'config.yaml', '--config', 'config.yaml']),
  );
  assert.equal(two.at?.column, 6);
  const noFile = userError(() =>
    parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', '--config']), { baseDir: '.' }),
  );
  assert.match(noFile.message, /needs a file name/);
  const badKey = userError(() => withYaml('3: x\n', ['vllm', 'serve', 'm', '--config', 'config.yaml']));
  assert.match(badKey.message, /keys must be flag names/);
  // An unknown key is a flag problem located at the key (lint's FL000), not an input error.
  const unknownKey = withYaml('port: 1\nkv-cache-dtpe: fp8\n', ['vllm', 'serve', 'm', '--config', 'config.yaml']);
  assert.deepEqual(unknownKey.flagProblems[0].at, { file: '/cfg/config.yaml', line: 2, column: 1 });
});

test('--config=FILE is read too, with a note that vLLM may not honour it', () => {
  const r = withYaml('port: 9000\n', ['vllm', 'serve', 'm', '--config=config.yaml']);
  assert.equal(r.args.get('port')?.value, 9000);
  assert.match(r.notes[0].value, /unconfirmed/);
});

test('tokensFromYaml: tokens and their positions', () => {
  const { tokens } = tokensFromYaml('a-flag: 1\nlist-flag:\n  - x\n  - 2.50\n', 'f.yaml', chooseFlagTable(undefined).index);
  assert.deepEqual(
    tokens.map((t) => [t.text, t.at?.line, t.at?.column]),
    [
      ['--a-flag', 1, 1],
      ['1', 1, 9],
      ['--list-flag', 2, 1],
      ['x', 3, 5],
      ['2.5', 4, 5],
    ],
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../core/errors.js';
import { tokensFromArgv } from './argv-token.js';
import {
  argKeyAt,
  parseVllmArgs,
  parseVllmCommand,
  type ParseVllmOptions,
  type VllmParse,
} from './vllm-args.js';

const opts: ParseVllmOptions = {
  baseDir: '/nowhere',
  readFile: () => {
    throw new Error('no files in this test');
  },
};
const parse = (argv: string[], more: Partial<ParseVllmOptions> = {}): VllmParse =>
  parseVllmCommand(tokensFromArgv(argv), { ...opts, ...more });
const values = (r: VllmParse): Record<string, unknown> =>
  Object.fromEntries([...r.args].map(([k, v]) => [k, v.value]));
const col = (r: VllmParse, dest: string): number | undefined => r.args.get(dest)?.at?.column;

/** Assert that fn throws a UserError and return it. */
function userError(fn: () => unknown): UserError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UserError, `expected UserError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a UserError');
}

const SEED = [
  'vllm',
  'serve',
  'nvidia/Gemma-4-31B-IT-NVFP4',
  '--kv-cache-dtype',
  'fp8_e4m3',
  '--attention-backend',
  'FLASHINFER',
  '--speculative-config',
  '{"method": "mtp", "num_speculative_tokens": 7}',
  '--attention-config',
  '{"disable_flashinfer_q_quantization": true}',
];

test('the canonical launch parses to typed values located at their option tokens', () => {
  const r = parse(SEED);
  assert.equal(r.entryPoint, 'serve');
  assert.deepEqual(r.model, {
    value: 'nvidia/Gemma-4-31B-IT-NVFP4',
    at: { file: '<argv>', line: 1, column: 3 },
  });
  assert.deepEqual(values(r), {
    model: 'nvidia/Gemma-4-31B-IT-NVFP4',
    kv_cache_dtype: 'fp8_e4m3',
    attention_backend: 'FLASHINFER',
    speculative_config: { method: 'mtp', num_speculative_tokens: 7 },
    attention_config: { disable_flashinfer_q_quantization: true },
  });
  assert.equal(col(r, 'kv_cache_dtype'), 4);
  assert.equal(col(r, 'attention_config'), 10);
  assert.deepEqual(r.notes, []);
});

test('JSON, dotted and short-alias dotted forms give the same attention_config', () => {
  const json = parse([
    'vllm',
    'serve',
    'm',
    '--attention-config',
    '{"backend": "FLASHINFER", "disable_flashinfer_q_quantization": true}',
  ]);
  const dotted = parse([
    'vllm',
    'serve',
    'm',
    '--attention-config.backend=FLASHINFER',
    '--attention_config.disable_flashinfer_q_quantization',
    'true',
  ]);
  const short = parse([
    'vllm',
    'serve',
    'm',
    '-ac.backend',
    'flashinfer',
    '-ac.disable_flashinfer_q_quantization=true',
  ]);
  for (const r of [json, dotted, short]) {
    assert.deepEqual(r.args.get('attention_config')?.value, {
      backend: 'FLASHINFER',
      disable_flashinfer_q_quantization: true,
    });
  }
  // Each dotted sub-key keeps its own token.
  assert.equal(argKeyAt(dotted.args, 'attention_config.disable_flashinfer_q_quantization')?.column, 5);
  assert.equal(argKeyAt(short.args, 'attention_config.backend')?.column, 4);
});

test('underscores and dashes are equivalent in the option name only; sub-keys keep theirs', () => {
  const r = parse([
    'vllm',
    'serve',
    'm',
    '--max_model_len=4096',
    '--gpu_memory_utilization',
    '0.8',
    '--compilation_config.pass_config.fuse_allreduce_rms',
    'true',
  ]);
  assert.deepEqual(values(r), {
    model: 'm',
    max_model_len: 4096,
    gpu_memory_utilization: 0.8,
    compilation_config: { pass_config: { fuse_allreduce_rms: true } },
  });
});

test('booleans: --x is true, --no-x is false, the last occurrence wins with a note', () => {
  const r = parse([
    'vllm',
    'serve',
    'm',
    '--enable-prefix-caching',
    '--no-enable-prefix-caching',
    '--enforce-eager',
  ]);
  assert.equal(r.args.get('enable_prefix_caching')?.value, false);
  assert.equal(r.args.get('enforce_eager')?.value, true);
  assert.equal(r.notes.length, 1);
  assert.match(r.notes[0].value, /more than once; the last one wins/);
  assert.equal(r.notes[0].at?.column, 5);
});

test('a value given twice: the last wins', () => {
  const r = parse(['vllm', 'serve', 'm', '--kv-cache-dtype', 'fp8', '--kv-cache-dtype=bfloat16']);
  assert.equal(r.args.get('kv_cache_dtype')?.value, 'bfloat16');
  assert.equal(col(r, 'kv_cache_dtype'), 6);
});

test('short aliases and the -O forms', () => {
  const r = parse([
    'vllm',
    'serve',
    'm',
    '-tp',
    '2',
    '-pp=2',
    '-dp',
    '4',
    '-q',
    'fp8',
    '-cc',
    '{"mode": 3}',
    '-O3',
  ]);
  assert.deepEqual(values(r), {
    model: 'm',
    tensor_parallel_size: 2,
    pipeline_parallel_size: 2,
    data_parallel_size: 4,
    quantization: 'fp8',
    compilation_config: { mode: 3 },
    optimization_level: '3',
  });
  assert.equal(parse(['vllm', 'serve', 'm', '-O=2']).args.get('optimization_level')?.value, '2');
  assert.equal(parse(['vllm', 'serve', 'm', '-O', '1']).args.get('optimization_level')?.value, '1');
  assert.equal(parse(['vllm', 'serve', 'm', '-qfp8']).args.get('quantization')?.value, 'fp8');
  const legacy = parse(['vllm', 'serve', 'm', '-O.level=3']);
  assert.deepEqual(legacy.args.get('compilation_config')?.value, { level: 3 });
  assert.match(legacy.notes[0].value, /alias of --compilation-config/);
});

test('dotted values: JSON when they parse, then human-readable ints, else the raw string', () => {
  const r = parse([
    'vllm',
    'serve',
    'm',
    '--speculative-config.num_speculative_tokens',
    '4',
    '--speculative-config.method=ngram',
    '--speculative-config.enforce_eager=True',
    '--speculative-config.max_model_len=2k',
    '--speculative-config.draft_load_config={"a": [1]}',
    '--speculative-config.flag',
    'false',
  ]);
  assert.deepEqual(r.args.get('speculative_config')?.value, {
    num_speculative_tokens: 4,
    method: 'ngram',
    enforce_eager: 'True',
    max_model_len: 2000,
    draft_load_config: { a: [1] },
    flag: false,
  });
});

test('+ appends to lists, and lists from several dotted tokens concatenate', () => {
  const r = parse([
    'vllm',
    'serve',
    'm',
    '--compilation_config.custom_ops+=+rotary_embedding',
    '--compilation-config.custom_ops+',
    '-rms_norm,+silu',
  ]);
  assert.deepEqual(r.args.get('compilation_config')?.value, {
    custom_ops: ['+rotary_embedding', '-rms_norm', '+silu'],
  });
});

test('JSON and dotted forms of one flag are not merged: the dotted keys win and the note names what was lost', () => {
  const r = parse([
    'vllm',
    'serve',
    'm',
    '--attention-config.use_trtllm_attention=false',
    '--attention-config',
    '{"backend": "FLASHINFER"}',
  ]);
  assert.deepEqual(r.args.get('attention_config')?.value, { use_trtllm_attention: false });
  assert.match(r.notes[0].value, /does not merge.*backend is dropped/);
  const spellings = parse([
    'vllm',
    'serve',
    'm',
    '--attention-config.disable_flashinfer_q_quantization=true',
    '-ac.backend=FLASHINFER',
  ]);
  assert.deepEqual(spellings.args.get('attention_config')?.value, { backend: 'FLASHINFER' });
  assert.match(
    spellings.notes[0].value,
    /--attention-config\.\* and -ac\.\* are separate\): disable_flashinfer_q_quantization is dropped/,
  );
});

test('human-readable ints for the flags vLLM parses that way', () => {
  assert.equal(
    parse(['vllm', 'serve', 'm', '--max-model-len', '32k']).args.get('max_model_len')?.value,
    32000,
  );
  assert.equal(
    parse(['vllm', 'serve', 'm', '--max-model-len', '32K']).args.get('max_model_len')?.value,
    32768,
  );
  assert.equal(parse(['vllm', 'serve', 'm', '--max-model-len', 'auto']).args.get('max_model_len')?.value, -1);
  assert.equal(
    parse(['vllm', 'serve', 'm', '--max-num-batched-tokens', '25.6k']).args.get('max_num_batched_tokens')
      ?.value,
    25600,
  );
  const e = userError(() => parse(['vllm', 'serve', 'm', '--max-model-len', '1.5K']));
  assert.match(e.message, /Decimals are not allowed/);
  assert.equal(e.at?.column, 5);
  assert.equal(userError(() => parse(['vllm', 'serve', 'm', '-tp', '2k'])).at?.column, 5);
});

test('negative numbers are values, not options', () => {
  assert.equal(parse(['vllm', 'serve', 'm', '--seed', '-1']).args.get('seed')?.value, -1);
  assert.equal(parse(['vllm', 'serve', 'm', '--rope-theta', '-0.5']).args.get('rope_theta')?.value, -0.5);
});

test('choices: kv-cache dtype is checked; attention backends are case-insensitive and stored upper-case', () => {
  const release271 = (argv: string[]) => parseVllmCommand(tokensFromArgv(argv), { baseDir: '.', vllmVersion: '0.27.1' });
  const e = userError(() => release271(['vllm', 'serve', 'm', '--kv-cache-dtype', 'fp8_e4m4']));
  assert.match(e.message, /invalid choice 'fp8_e4m4'/);
  assert.match(e.hint ?? '', /did you mean fp8_e4m3\?/);
  assert.equal(e.at?.column, 5);
  // Version unknown: perhaps a newer release's value — a flag problem (FL000) with the suggestion, read as written.
  const unknownVersion = parse(['vllm', 'serve', 'm', '--kv-cache-dtype', 'fp8_e4m4']);
  assert.deepEqual(
    unknownVersion.flagProblems.map((p) => [p.kind, p.option, p.value, p.suggestion, p.at?.column]),
    [['choice', '--kv-cache-dtype', 'fp8_e4m4', 'fp8_e4m3', 5]],
  );
  assert.equal(unknownVersion.args.get('kv_cache_dtype')?.value, 'fp8_e4m4');
  assert.equal(
    parse(['vllm', 'serve', 'm', '--attention-backend', 'flashinfer']).args.get('attention_backend')?.value,
    'FLASHINFER',
  );
  assert.equal(
    parse(['vllm', 'serve', 'm', '--attention-backend', 'auto']).args.get('attention_backend')?.value,
    'auto',
  );
  const old = parse(['vllm', 'serve', 'm', '--attention-backend', 'XFORMERS']);
  assert.match(old.notes[0].value, /older vLLM releases/);
  const bad = userError(() => parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', '-ac.backend=FLASHINFR']), { baseDir: '.', vllmVersion: '0.23.0' }));
  assert.match(bad.hint ?? '', /did you mean FLASHINFER\?/);
  assert.equal(bad.at?.column, 4);
  // With a release version, a method outside its table is vLLM's own "invalid choice"; for a
  // nightly build (or no version) the value may be newer than the table: a flag problem (FL000).
  const release = userError(() => release271(['vllm', 'serve', 'm', '-q', 'newquant']));
  assert.match(release.message, /invalid choice 'newquant'/);
  const nightly = parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', '-q', 'newquant']), { baseDir: '.', vllmVersion: '0.27.2rc1.dev5+gabc' });
  assert.deepEqual(nightly.flagProblems.map((p) => [p.kind, p.value]), [['choice', 'newquant']]);
  const allowed = parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', '-q', 'newquant']), { baseDir: '.', vllmVersion: '0.31.0', allowUnknown: true });
  assert.equal(allowed.flagProblems.length, 0);
  assert.match(allowed.notes.map((n) => n.value).join('\n'), /-q newquant: not a choice faultline's flag tables \(to vLLM 0\.27\.1\) have; taken as given/);
});

test('--attention-backend together with attention_config.backend is noted as a startup failure', () => {
  const r = parse(['vllm', 'serve', 'm', '--attention-backend', 'FLASHINFER', '-ac.backend=TRITON_ATTN']);
  assert.match(r.notes.map((n) => n.value).join('\n'), /mutually exclusive/);
});

test('malformed input is a UserError at the right token', () => {
  // An unknown flag is not a UserError: it is a flag problem (lint's FL000), with a suggestion.
  const unknown = parse(['vllm', 'serve', 'm', '--kv-cach-dtype', 'fp8']);
  assert.deepEqual(unknown.flagProblems.map((p) => [p.option, p.suggestion, p.at?.column]), [['--kv-cach-dtype', '--kv-cache-dtype', 4]]);
  // ... and an abbreviation argparse accepts is the flag itself.
  assert.equal(parse(['vllm', 'serve', 'm', '--max-num-seq', '8']).args.get('max_num_seqs')?.value, 8);
  // --kv-cache-dtyp also starts --kv-cache-dtype-skip-layers: argparse's "ambiguous option".
  assert.deepEqual(parse(['vllm', 'serve', 'm', '--kv-cache-dtyp', 'fp8']).flagProblems[0].candidates?.sort(), ['--kv-cache-dtype', '--kv-cache-dtype-skip-layers']);
  assert.equal(parse(['vllm', 'serve', 'm', '--completely-made-up-thing']).flagProblems[0].suggestion, undefined);
  const json = userError(() => parse(['vllm', 'serve', 'm', '--speculative-config', "{'method': 'ngram'}"]));
  assert.match(json.message, /argument --speculative-config: invalid JSON/);
  assert.equal(json.at?.column, 5);
  assert.match(json.hint ?? '', /double quotes/);
  const notObject = userError(() => parse(['vllm', 'serve', 'm', '--speculative-config', '[1]']));
  assert.match(notObject.message, /expected a JSON object/);
  const atEnd = userError(() => parse(['vllm', 'serve', 'm', '--kv-cache-dtype']));
  assert.match(atEnd.message, /expected a value/);
  assert.equal(atEnd.at?.column, 4);
  const beforeOption = userError(() => parse(['vllm', 'serve', 'm', '--served-model-name', '--port', '1']));
  assert.match(beforeOption.message, /--served-model-name: expected at least one value/);
  const dottedAtEnd = userError(() => parse(['vllm', 'serve', 'm', '--speculative-config.method']));
  assert.equal(dottedAtEnd.at?.column, 4);
  const boolValue = userError(() => parse(['vllm', 'serve', 'm', '--enforce-eager=yes']));
  // --x=true / --x=false is the older StoreBoolean form: read with a note, a flag problem for a release without it.
  assert.equal(parse(['vllm', 'serve', 'm', '--enforce-eager=false']).args.get('enforce_eager')?.value, false);
  assert.match(boolValue.hint ?? '', /--no-enforce-eager/);
  const subKeyOnScalar = userError(() => parse(['vllm', 'serve', 'm', '--max-model-len.x=1']));
  assert.match(subKeyOnScalar.message, /takes no dotted sub-keys/);
  assert.equal(
    userError(() => parse(['vllm', 'serve', 'm', '-tp', 'two'])).message,
    "argument -tp: invalid int value: 'two'",
  );
  assert.match(
    userError(() => parse(['vllm', 'serve', 'm', '--gpu-memory-utilization', 'most'])).message,
    /invalid float/,
  );
});

test('not a vLLM server launch', () => {
  assert.equal(userError(() => parse(['vllm', 'chat'])).code, 'E_NOT_VLLM');
  assert.equal(userError(() => parse(['vllm', 'chat'])).at?.column, 2);
  assert.equal(userError(() => parse(['sglang', 'serve'])).at?.column, 1);
  assert.equal(userError(() => parse(['python', '-m', 'sglang.launch_server'])).at?.column, 3);
  assert.equal(userError(() => parse(['python', 'serve.py'])).at?.column, 1);
  assert.equal(userError(() => parse([])).code, 'E_NOT_VLLM');
});

test('entry points: vllm by path, python -m api_server with interpreter options, cli.main serve', () => {
  assert.equal(parse(['/opt/venv/bin/vllm', 'serve', 'm']).model?.value, 'm');
  const api = parse([
    'python3',
    '-u',
    '-m',
    'vllm.entrypoints.openai.api_server',
    '--model',
    'X',
    '--port',
    '8080',
  ]);
  assert.equal(api.entryPoint, 'api_server');
  assert.equal(api.model?.value, 'X');
  assert.equal(api.model?.at?.column, 5);
  assert.equal(api.at?.column, 1);
  assert.equal(parse(['python3.12', '-m', 'vllm.entrypoints.cli.main', 'serve', 'm']).model?.value, 'm');
  assert.match(
    parse(['python', '-m', 'vllm.entrypoints.api_server', '--model', 'X']).notes[0].value,
    /old demo server/,
  );
});

test('model: positional, --model, both (noted), neither (noted)', () => {
  assert.equal(parse(['vllm', 'serve', '--port', '8000', 'm']).model?.value, 'm');
  assert.equal(parse(['vllm', 'serve', '--model', 'm']).model?.value, 'm');
  const both = parse(['vllm', 'serve', 'a', '--model', 'b']);
  assert.equal(both.model?.value, 'b');
  assert.match(both.notes[0].value, /both as a positional/);
  const none = parse(['vllm', 'serve', '--port', '8000']);
  assert.equal(none.model, undefined);
  assert.match(none.notes[0].value, /no model given/);
  const apiPositional = parse(['python', '-m', 'vllm.entrypoints.openai.api_server', 'm']);
  assert.equal(apiPositional.model, undefined);
  assert.match(apiPositional.notes[0].value, /stray positional argument "m"/);
});

test('a list item holding a flag and its value is a stray positional, as in vLLM', () => {
  const r = parse(['vllm', 'serve', 'm', '--num-speculative-tokens 5']);
  assert.equal(r.args.has('num_speculative_tokens'), false);
  assert.match(r.notes[0].value, /flag and its value in one argument/);
});

test('nargs=+ flags take values up to the next option', () => {
  const r = parse(['vllm', 'serve', 'm', '--served-model-name', 'a', 'b', '--port', '8000']);
  assert.deepEqual(r.args.get('served_model_name')?.value, ['a', 'b']);
  assert.equal(r.args.get('port')?.value, 8000);
});

test('allowUnknown records unknown flags as notes with a guessed value', () => {
  const r = parse(['vllm', 'serve', 'm', '--brand-new-flag', 'x', '--other-new=1', '--switch'], {
    allowUnknown: true,
  });
  assert.equal(r.args.get('brand_new_flag')?.value, 'x');
  assert.equal(r.args.get('other_new')?.value, '1');
  assert.equal(r.args.get('switch')?.value, true);
  assert.equal(r.notes.length, 3);
  assert.match(r.notes[0].value, /unknown vLLM flag --brand-new-flag/);
});

test('legacy flags carry a note; legacy speculative flags become speculative_config', () => {
  const r = parse([
    'vllm',
    'serve',
    'm',
    '--speculative_model',
    '/ckpt/',
    '--use-v2-block-manager',
    '--num-speculative-tokens',
    '3',
  ]);
  assert.deepEqual(r.args.get('speculative_config')?.value, { model: '/ckpt/', num_speculative_tokens: 3 });
  assert.equal(argKeyAt(r.args, 'speculative_config.num_speculative_tokens')?.column, 7);
  const text = r.notes.map((n) => n.value).join('\n');
  assert.match(text, /--speculative-model: legacy flag/);
  assert.match(text, /--use-v2-block-manager: not a flag of vLLM 0\.27\.1; the last release faultline has it in is 0\.9\.2/);
  const ngram = parse([
    'vllm',
    'serve',
    'm',
    '--speculative-model',
    '[ngram]',
    '--num-speculative-tokens',
    '5',
  ]);
  assert.deepEqual(ngram.args.get('speculative_config')?.value, {
    method: 'ngram',
    num_speculative_tokens: 5,
  });
  // --diffusion-config came from a fork and is upstream since (the 0.27 table has it); a flag of
  // no release is a flag problem.
  assert.deepEqual(parse(['vllm', 'serve', 'm', '--diffusion-config', '{"canvas_length":256}']).flagProblems, []);
  assert.equal(parse(['vllm', 'serve', 'm', '--frobnicate']).flagProblems[0].option, '--frobnicate');
});

test('parseVllmArgs: flags only, extra flags, and the container-args tail', () => {
  const extra = [
    { dest: 'emulate', kind: 'choice' as const, choices: ['fixed', 'shipped'] },
    { dest: 'prompt', kind: 'string' as const },
  ];
  const r = parseVllmArgs(
    tokensFromArgv(['models/tiny-swa', '--emulate', 'shipped', '--prompt', 'hi', '--kv-cache-dtype', 'fp8']),
    { ...opts, extraFlags: extra },
  );
  assert.equal(r.entryPoint, 'args');
  assert.equal(r.model?.value, 'models/tiny-swa');
  assert.deepEqual(values(r), {
    model: 'models/tiny-swa',
    emulate: 'shipped',
    prompt: 'hi',
    kv_cache_dtype: 'fp8',
  });
  assert.match(
    userError(() => parseVllmArgs(tokensFromArgv(['--emulate', 'other']), { ...opts, extraFlags: extra }))
      .message,
    /invalid choice/,
  );
  const api = parseVllmArgs(tokensFromArgv(['--model=/mnt/models', 'x']), {
    ...opts,
    positionalModel: false,
  });
  assert.equal(api.model?.value, '/mnt/models');
  assert.match(api.notes[0].value, /stray positional/);
});

test('tokens without locations (synthetic entrypoint) are fine', () => {
  const r = parseVllmCommand(
    [{ text: 'vllm' }, { text: 'serve' }, ...tokensFromArgv(['m', '-tp', '2'], 'k8s.yaml')],
    opts,
  );
  assert.equal(r.at, undefined);
  assert.deepEqual(r.args.get('tensor_parallel_size'), {
    value: 2,
    at: { file: 'k8s.yaml', line: 1, column: 2 },
  });
});

test('a variable a launch file leaves unset is an unknown value, noted, not a malformed one', () => {
  const r = parse(['vllm', 'serve', '$MODEL', '--tensor-parallel-size', '$TP', '--max-model-len=${MAX_MODEL_LEN}', '--kv-cache-dtype', '$(KV_DTYPE)']);
  assert.equal(r.args.get('tensor_parallel_size')?.value, '$TP');
  assert.equal(r.args.get('max_model_len')?.value, '${MAX_MODEL_LEN}');
  assert.equal(r.args.get('kv_cache_dtype')?.value, '$(KV_DTYPE)');
  assert.equal(r.notes.length, 3);
  assert.match(r.notes[0].value, /known only when the launch runs/);
  assert.throws(() => parse(['vllm', 'serve', 'm', '-tp', '$(echo 2)']), UserError);
});

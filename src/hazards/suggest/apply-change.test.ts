import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokensFromArgv } from '../../deployment/argv-token.js';
import { deploymentFromArgv } from '../../deployment/load.js';
import type { LaunchChange } from '../change.js';
import { applyChange, pythonStyleJson } from './apply-change.js';
import { renderShell, renderYamlList, shellQuote } from './render.js';
import { programLength, segmentArgv } from './segment.js';

/** The argv after the change, and the launch re-parsed from it. */
function apply(argv: string[], change: LaunchChange) {
  const d = deploymentFromArgv(argv, { cwd: '/' });
  const out = applyChange(d, tokensFromArgv(argv), change);
  const words = out.tokens.map((t) => t.text);
  return { words, out, again: deploymentFromArgv(words, { cwd: '/' }) };
}

test('segments: program words, options with their values, dotted keys under their dest, unknown options with a guessed value, positionals', () => {
  const argv = [
    'vllm',
    'serve',
    'm',
    '-tp',
    '2',
    '--enforce-eager',
    '--attention-config.backend',
    'X',
    '--zz-top',
    'v',
    '--x-y=1',
    'extra',
  ];
  const s = segmentArgv(tokensFromArgv(argv));
  assert.equal(s.programLength, 2);
  assert.deepEqual(
    s.groups.map((g) => [argv.slice(g.start, g.end).join(' '), g.dest, g.path]),
    [
      ['m', undefined, undefined],
      ['-tp 2', 'tensor_parallel_size', undefined],
      ['--enforce-eager', 'enforce_eager', undefined],
      ['--attention-config.backend X', 'attention_config', 'backend'],
      ['--zz-top v', 'zz_top', undefined],
      ['--x-y=1', 'x_y', undefined],
      ['extra', undefined, undefined],
    ],
  );
  assert.equal(
    programLength(tokensFromArgv(['python3', '-u', '-m', 'vllm.entrypoints.openai.api_server'])),
    4,
  );
  assert.equal(programLength(tokensFromArgv(['python', '-m', 'vllm.entrypoints.cli.main', 'serve', 'm'])), 4);
});

test('set replaces a value in place and keeps the spelling; absent flags are appended', () => {
  const r = apply(['vllm', 'serve', 'm', '-tp', '2', '--kv_cache_dtype=fp8'], {
    set: { tensor_parallel_size: 1, kv_cache_dtype: 'auto' },
  });
  assert.deepEqual(r.words, ['vllm', 'serve', 'm', '-tp', '1', '--kv-cache-dtype', 'auto']);
  const b = apply(['vllm', 'serve', 'm'], { set: { enable_prefix_caching: false, block_size: 16 } });
  assert.deepEqual(b.words, ['vllm', 'serve', 'm', '--no-enable-prefix-caching', '--block-size', '16']);
  assert.equal(b.again.args.get('enable_prefix_caching')?.value, false);
});

test('a JSON sub-key changes the merged value: dotted keys fold into one JSON word, other keys survive', () => {
  const argv = [
    'vllm',
    'serve',
    'm',
    '--attention-config',
    '{"backend": "FLASHINFER"}',
    '--attention-config.disable_flashinfer_q_quantization=true',
  ];
  const r = apply(argv, { set: { 'attention_config.use_trtllm_attention': false } });
  assert.deepEqual(r.again.args.get('attention_config')?.value, {
    disable_flashinfer_q_quantization: true,
    use_trtllm_attention: false,
  });
  const u = apply(argv, { unset: 'attention_config.disable_flashinfer_q_quantization' });
  assert.deepEqual(u.words, ['vllm', 'serve', 'm']);
  const nested = apply(['vllm', 'serve', 'm', '-cc.pass_config.fuse_allreduce_rms=true'], {
    set: { 'compilation_config.pass_config.fuse_allreduce_rms': false },
  });
  assert.deepEqual(nested.again.args.get('compilation_config')?.value, {
    pass_config: { fuse_allreduce_rms: false },
  });
});

test('unset drops every spelling of a dest; add replaces the dest it names, or appends', () => {
  const r = apply(
    [
      'vllm',
      'serve',
      'm',
      '--speculative-config',
      '{"method": "ngram"}',
      '--speculative-config.num_speculative_tokens',
      '3',
      '--async-scheduling',
    ],
    {
      unset: 'speculative_config',
      add: ['--no-async-scheduling', '--enforce-eager'],
    },
  );
  assert.deepEqual(r.words, ['vllm', 'serve', 'm', '--no-async-scheduling', '--enforce-eager']);
  assert.equal(r.again.args.get('async_scheduling')?.value, false);
});

test('what the argv cannot carry comes back as instructions and env edits', () => {
  const d = deploymentFromArgv(['vllm', 'serve', 'm'], { cwd: '/', env: { VLLM_X: '1' } });
  const out = applyChange(d, d.argv ?? [], {
    env: { VLLM_X: null, VLLM_Y: '2' },
    versions: { flashinfer: '0.6.18rc2' },
  });
  assert.deepEqual(out.env.set, { VLLM_Y: '2' });
  assert.deepEqual(
    out.env.unset.map((u) => u.value),
    ['VLLM_X'],
  );
  assert.deepEqual(
    out.instructions.map((i) => i.value),
    ['run flashinfer-python ≥ 0.6.18rc2'],
  );
});

test('rendering: shell quoting, one option per line when the original was multi-line, YAML list items', () => {
  assert.equal(shellQuote('fp8'), 'fp8');
  assert.equal(shellQuote(`{"a": "it's"}`), `'{"a": "it'\\''s"}'`);
  const toks = [
    { text: 'vllm', at: { file: 'f', line: 1, column: 1 } },
    { text: 'serve', at: { file: 'f', line: 1, column: 6 } },
    { text: 'm', at: { file: 'f', line: 1, column: 12 } },
    { text: '--kv-cache-dtype', at: { file: 'f', line: 2, column: 3 } },
    { text: 'fp8', at: { file: 'f', line: 2, column: 20 } },
    { text: '--enforce-eager' },
  ];
  assert.equal(
    renderShell(toks, { env: { A: 'x y' } }),
    `A='x y' vllm serve m \\\n  --kv-cache-dtype fp8 \\\n  --enforce-eager`,
  );
  assert.equal(
    renderYamlList(['--attention-config', '{"a": true}'], 4),
    `    - --attention-config\n    - '{"a": true}'`,
  );
  assert.equal(pythonStyleJson({ a: [1, { b: null }], c: 'x' }), '{"a": [1, {"b": null}], "c": "x"}');
});

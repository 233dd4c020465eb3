/**
 * Sub-key values of the JSON config flags, checked as vLLM 0.23.0 checks them (pydantic lax mode
 * over vllm/config/{speculative,attention,compilation}.py; vllm-config-fields.ts cites them).
 * Rejected values are the ones vLLM refuses at start-up; accepted ones include pydantic's lax
 * spellings ("3" for an int, "on" for a bool, a backend name in any case).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUserError } from '../core/errors.js';
import { tokensFromArgv } from './argv-token.js';
import { parseVllmCommand } from './vllm-args.js';

const parse = (...flags: string[]) => parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', ...flags]), { baseDir: '/x' });
/** The launch's release is the one the config fields were read at: what they lack, vLLM refuses. */
const parse023 = (...flags: string[]) =>
  parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', ...flags]), { baseDir: '/x', vllmVersion: '0.23.0' });

function refused(flags: string[], message: RegExp): void {
  assert.throws(
    () => parse023(...flags),
    (e: unknown) => isUserError(e) && e.code === 'E_VLLM_ARGS' && message.test(e.message) && /vLLM refuses to start/.test(e.message),
    flags.join(' '),
  );
}

test('speculative values vLLM rejects are errors, not "not set"', () => {
  refused(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": "abc"}'], /speculative_config\.num_speculative_tokens: 'abc' is not an integer/);
  refused(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": -3}'], /num_speculative_tokens: -3 must be greater than 0/);
  refused(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2.5}'], /2\.5 is not an integer/);
  refused(['--speculative-config', '{"method": 5}'], /speculative_config\.method: 5 is not one of 'ngram', .*\(30 in all\)/);
  refused(['--speculative-config', '{"method": "ngramm", "num_speculative_tokens": 2}'], /did you mean 'ngram'\?/);
  refused(['--speculative-config', '{"method": "mtp", "model": 7}'], /speculative_config\.model: 7 is not a string/);
  refused(['--speculative-config', '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 0}'], /prompt_lookup_min: 0 must be 1 or more/);
  refused(['--speculative-config', '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 2}'], /prompt_lookup_min=4 must be <= prompt_lookup_max=2/);
  refused(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2, "tensor_parallel_size": 2}'], /tensor_parallel_size: is not a valid argument/);
  refused(['--speculative-config', '{"method": "suffix", "suffix_decoding_min_token_prob": 1.5}'], /suffix_decoding_min_token_prob=1\.5 must be in \[0, 1\]/);
  refused(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2, "draft_sample_method": "top_p"}'], /draft_sample_method/);
  refused(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2, "synthetic_acceptance_length": 2}'], /only valid with rejection_sample_method='synthetic'/);
  refused(
    ['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic", "synthetic_acceptance_rates": [0.5, 0.9]}'],
    /must be non-increasing/,
  );
  refused(['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2, "attention_backend": "FLASHINFERR"}'], /did you mean 'FLASHINFER'\?/);
});

test('attention and compilation sub-keys are checked the same way', () => {
  refused(['--attention-config', '{"flash_attn_version": 7}'], /attention_config\.flash_attn_version: 7 is not one of 2, 3, 4/);
  refused(['--attention-config.disable_flashinfer_q_quantization=maybe'], /'maybe' is not a boolean/);
  refused(['--attention-config', '{"mla_prefill_backend": "cudnn"}'], /mla_prefill_backend: 'CUDNN' is not one of 'FLASH_ATTN'/);
  refused(['--compilation-config', '{"mode": "fast"}'], /compilation_config\.mode: 'FAST' is not one of 'NONE', 'STOCK_TORCH_COMPILE'/);
  refused(['--compilation-config', '{"mode": 7}'], /compilation_config\.mode: 7 is not one of/);
  refused(['--compilation-config', '{"cudagraph_mode": "HALF"}'], /cudagraph_mode: 'HALF'/);
  refused(['--compilation-config', '{"cudagraph_capture_sizes": [1, "two"]}'], /cudagraph_capture_sizes: item 1: 'two' is not an integer/);
  refused(['--compilation-config.pass_config.fuse_allreduce_rms=sometimes'], /compilation_config\.pass_config\.fuse_allreduce_rms: 'sometimes' is not a boolean/);
  refused(['--compilation-config', '{"pass_config": {"fi_allreduce_fusion_max_size_mb": "big"}}'], /fi_allreduce_fusion_max_size_mb: 'big' is not a number/);
});

test('the error points at where the sub-key was written', () => {
  try {
    parse('--kv-cache-dtype', 'fp8', '--speculative-config.method=mtp', '--speculative-config.num_speculative_tokens=-3');
    assert.fail('accepted');
  } catch (e) {
    assert.ok(isUserError(e));
    assert.deepEqual(e.at, { file: '<argv>', line: 1, column: 7 });
  }
});

test("pydantic's lax spellings are accepted, as vLLM accepts them", () => {
  const ok = [
    ['--speculative-config', '{"method": "mtp", "num_speculative_tokens": "3"}'],
    ['--speculative-config.method=ngram', '--speculative-config.num_speculative_tokens=4', '--speculative-config.prompt_lookup_max=3'],
    ['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 3.0, "enforce_eager": "yes", "attention_backend": "flashinfer"}'],
    ['--speculative-config', '{"method": "suffix"}'],
    ['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic", "synthetic_acceptance_rates": [0.9, 0.5]}'],
    ['--attention-config', '{"backend": "flashinfer", "disable_flashinfer_q_quantization": "on", "flash_attn_version": 3, "use_trtllm_attention": null}'],
    ['--compilation-config', '{"mode": 3, "cudagraph_mode": "full_and_piecewise", "cudagraph_capture_sizes": [1, 2, 4], "pass_config": {"fuse_allreduce_rms": true}}'],
    ['--compilation-config', '{"mode": "vllm_compile", "compile_sizes": [1, "cudagraph_capture_sizes"], "inductor_compile_config": {"max_autotune": true}}'],
  ];
  for (const flags of ok) assert.doesNotThrow(() => parse(...flags), flags.join(' '));
});

test('a sub-key vLLM 0.23 does not know is a flag problem (FL000), read as written: certain for 0.23, possible for other releases', () => {
  const flags = ['--speculative-config', '{"method": "mtp", "num_speculative_tokens": 2, "disable_by_batch_size": 4}', '--compilation-config.cudagraph_mod=FULL'];
  const unknownVersion = parse(...flags);
  assert.deepEqual(
    unknownVersion.flagProblems.map((p) => [p.kind, p.option, p.definite, p.suggestion]),
    [
      ['sub-key', 'speculative_config.disable_by_batch_size', false, undefined],
      ['sub-key', 'compilation_config.cudagraph_mod', false, 'cudagraph_mode'],
    ],
  );
  assert.equal((unknownVersion.args.get('speculative_config')?.value as Record<string, unknown>).disable_by_batch_size, 4);
  assert.deepEqual(parse023(...flags).flagProblems.map((p) => p.definite), [true, true]);
  const allowed = parseVllmCommand(tokensFromArgv(['vllm', 'serve', 'm', ...flags]), { baseDir: '/x', allowUnknown: true });
  assert.equal(allowed.flagProblems.length, 0);
  assert.match(allowed.notes.map((n) => n.value).join('\n'), /speculative_config\.disable_by_batch_size is not a key vLLM 0\.23\.0 knows: that release refuses to start with it/);
});

test('off vLLM 0.23 (newer or unknown version), a name outside a sub-key\'s names is a flag problem read as written; a value of the wrong kind is still refused', () => {
  for (const version of [undefined, '0.31.0', '0.27.1']) {
    const p = parseVllmCommand(
      tokensFromArgv(['vllm', 'serve', 'm', '--speculative-config', '{"method": "domino", "num_speculative_tokens": 3}', '-ac.backend=FLASHINFER_XQA', '-cc.cudagraph_mode=FULL_DECODE_ONLY_V2']),
      { baseDir: '/x', ...(version ? { vllmVersion: version } : {}) },
    );
    assert.deepEqual(
      p.flagProblems.map((x) => [x.kind, x.option, x.value]),
      [
        ['sub-key-value', 'attention_config.backend', 'FLASHINFER_XQA'],
        ['sub-key-value', 'speculative_config.method', 'domino'],
        ['sub-key-value', 'compilation_config.cudagraph_mode', 'FULL_DECODE_ONLY_V2'],
      ],
      String(version),
    );
    assert.equal((p.args.get('speculative_config')?.value as Record<string, unknown>).method, 'domino');
    assert.equal((p.args.get('attention_config')?.value as Record<string, unknown>).backend, 'FLASHINFER_XQA');
  }
  assert.throws(() => parse('--speculative-config', '{"method": "mtp", "num_speculative_tokens": "abc"}'), /is not an integer/);
  assert.throws(() => parse('--attention-config', '{"flash_attn_version": 7}'), /7 is not one of 2, 3, 4/);
  assert.throws(() => parse('--speculative-config', '{"method": 5}'), /5 is not one of/);
  const near = parse('--speculative-config', '{"method": "ngramm", "num_speculative_tokens": 2}').flagProblems[0];
  assert.equal(near.suggestion, 'ngram');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../core/errors.js';
import { parseLlamaCppArgv } from './flags.js';
import { DEFAULT_OPTIONS } from './options.js';

const parse = (...argv: string[]) => parseLlamaCppArgv(argv, (p) => `/abs/${p}`);

test("llama-server's long and short names, --name=value and negations", () => {
  const s = parse(
    '-m',
    'm.gguf',
    '-c',
    '2048',
    '-np',
    '2',
    '-fa',
    'on',
    '-ctk',
    'q8_0',
    '--cache-type-v=q4_0',
    '--swa-full',
    '-b',
    '64',
    '--context-shift',
    '-md',
    'd.gguf',
    '--draft-max',
    '8',
    '-t',
    '2',
    '--no-cache-prompt',
    '--alias',
    'tiny',
  );
  assert.equal(s.model, '/abs/m.gguf');
  assert.equal(s.alias, 'tiny');
  assert.deepEqual(s.options, {
    ...DEFAULT_OPTIONS,
    ctxSize: 2048,
    parallel: 2,
    flashAttn: 'on',
    cacheTypeK: 'q8_0',
    cacheTypeV: 'q4_0',
    swaFull: true,
    batchSize: 64,
    contextShift: true,
    modelDraft: '/abs/d.gguf',
    draftMax: 8,
    threads: 2,
    cacheReuse: false,
  });
  assert.equal(
    parse('-m', 'm.gguf', '--context-shift', '--no-context-shift').options.contextShift,
    false,
    'the last one wins',
  );
});

test('defaults: one thread, four sequences, F16 cache, flash attention auto, no context shift', () => {
  const o = parse('-m', 'm.gguf').options;
  assert.equal(o.threads, 1);
  assert.equal(o.parallel, 4);
  assert.equal(o.cacheTypeK, 'f16');
  assert.equal(o.flashAttn, 'auto');
  assert.equal(o.contextShift, false);
});

test('bad input is a UserError: unknown option, bad choice, bad integer, missing value or model, quantized V without flash attention', () => {
  const fails = (argv: string[], why: RegExp) =>
    assert.throws(
      () => parse(...argv),
      (e: unknown) => e instanceof UserError && why.test(e.message) && Boolean(e.hint),
    );
  fails(['-m', 'm.gguf', '--gpu-layers', '99'], /--gpu-layers is not an option/);
  fails(['-m', 'm.gguf', '-ctk', 'fp8'], /-ctk fp8 is not one of f32, f16/);
  fails(['-m', 'm.gguf', '-np', '0'], /--parallel must be an integer ≥ 1/);
  fails(['-m', 'm.gguf', '-c'], /-c needs a value/);
  fails(['-c', '512'], /needs --model/);
  fails(['-m', 'm.gguf', '-ctv', 'q8_0', '-fa', 'off'], /quantized V cache/);
  fails(['-m', 'm.gguf', '-c', '2', '-np', '4'], /smaller than --parallel/);
  fails(['-m', 'm.gguf', '--draft-p-min', '1.5'], /probability/);
  fails(['-m', 'm.gguf', '--swa-full=yes'], /takes no value/);
});

test('--spec-type ngram-simple is prompt lookup with its n-gram sizes; it and --model-draft are one drafter too many', () => {
  const s = parse('-m', 'm.gguf', '--spec-type', 'ngram-simple', '--spec-ngram-simple-size-n', '4');
  assert.equal(s.options.specType, 'ngram-simple');
  assert.equal(s.options.ngramSizeN, 4);
  assert.equal(s.options.ngramSizeM, DEFAULT_OPTIONS.ngramSizeM);
  assert.equal(parse('-m', 'm.gguf').options.specType, 'none');
  assert.throws(
    () => parse('-m', 'm.gguf', '--spec-type', 'ngram-simple', '-md', 'd.gguf'),
    (e: unknown) => e instanceof UserError && /two drafters/.test(e.message),
  );
  assert.throws(
    () => parse('-m', 'm.gguf', '--spec-type', 'draft-eagle3'),
    (e: unknown) => e instanceof UserError && /not one of none, draft-simple, ngram-simple/.test(e.message),
  );
});

test("llama-server v0.4.0's speculation names: --spec-type draft-simple with --spec-draft-model and --spec-draft-n-max", () => {
  const s = parse(
    '-m',
    'm.gguf',
    '--spec-draft-model',
    'd.gguf',
    '--spec-type',
    'draft-simple',
    '--spec-draft-n-max',
    '8',
  );
  assert.equal(s.options.specType, 'draft-simple');
  assert.match(String(s.options.modelDraft), /d\.gguf$/);
  assert.equal(s.options.draftMax, 8);
  assert.throws(
    () => parse('-m', 'm.gguf', '--spec-type', 'draft-simple'),
    (e: unknown) =>
      e instanceof UserError && /draft-simple drafts with a draft model, and none is given/.test(e.message),
  );
});

/**
 * Property tests of the vLLM argv emulation: whatever the tokens, the parser either returns a
 * result or throws a UserError (never another exception); and the dotted-key form of a JSON flag
 * always equals its JSON form. Seeds are fixed so a failure reproduces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UserError } from '../core/errors.js';
import { tokensFromArgv } from './argv-token.js';
import { parseVllmArgs, parseVllmCommand } from './vllm-args.js';
import { chooseFlagTable } from './vllm-flag-table.js';
import { longOptionOf } from './vllm-flags.js';

const VLLM_FLAGS = chooseFlagTable(undefined).table.specs;

const FLAG_WORDS = VLLM_FLAGS.flatMap((f) => [longOptionOf(f.dest), ...(f.aliases ?? [])]);
const YAML_FILES: Record<string, string> = {
  'a.yaml':
    'kv-cache-dtype: fp8\nspeculative-config: {method: ngram, num_speculative_tokens: 5}\nenforce_eager: false\n',
  'b.yaml': 'port: [1, 2]\n: :\n',
  'c.yml': '- x\n',
};
const readFile = (p: string): string => {
  const name = p.split('/').pop() ?? '';
  if (name in YAML_FILES) return YAML_FILES[name];
  throw new Error('ENOENT');
};

const jsonValue = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
const dottedKey = fc
  .tuple(
    fc.constantFrom(...FLAG_WORDS, '-O', '-ac', '-cc', '--nope'),
    fc.array(
      fc.oneof(
        fc.stringMatching(/^[a-z_]{0,6}\+?$/),
        fc.constantFrom('__proto__', 'constructor', 'prototype'),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([flag, path]) => `${flag}.${path.join('.')}`);
const token = fc.oneof(
  fc.constantFrom(...FLAG_WORDS),
  fc.constantFrom(...FLAG_WORDS).map((f) => (f.startsWith('--') ? `--no-${f.slice(2)}` : f)),
  fc.constantFrom(
    '--config',
    'a.yaml',
    'b.yaml',
    'c.yml',
    'missing.yaml',
    '--',
    '-',
    '-O3',
    '-O',
    '-O=x',
    '-1',
    '-0.5',
    'true',
    'FLASHINFER',
    'fp8',
    '8k',
    '1.5K',
  ),
  jsonValue,
  dottedKey,
  fc.tuple(dottedKey, jsonValue).map(([k, v]) => `${k}=${v}`),
  fc.tuple(fc.constantFrom(...FLAG_WORDS), fc.string()).map(([k, v]) => `${k}=${v}`),
  fc.string(),
);
const prefix = fc.constantFrom(
  ['vllm', 'serve'],
  ['python', '-m', 'vllm.entrypoints.openai.api_server'],
  ['vllm'],
  ['python3', '-u', '-m'],
);

function onlyUserErrors(run: () => unknown): void {
  try {
    run();
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    assert.ok(e.message.length > 0);
  }
}

test('random commands: a result or a UserError, nothing else', () => {
  fc.assert(
    fc.property(prefix, fc.array(token, { maxLength: 14 }), fc.boolean(), (pre, rest, allowUnknown) => {
      onlyUserErrors(() =>
        parseVllmCommand(tokensFromArgv([...pre, ...rest]), { baseDir: '/x', readFile, allowUnknown }),
      );
    }),
    { seed: 20260901, numRuns: 1000 },
  );
  assert.deepEqual(Object.keys(Object.prototype), [], 'no prototype pollution');
});

test('random flag lists through parseVllmArgs: a result or a UserError', () => {
  fc.assert(
    fc.property(fc.array(token, { maxLength: 14 }), fc.boolean(), (rest, allowUnknown) => {
      onlyUserErrors(() => parseVllmArgs(tokensFromArgv(rest), { baseDir: '/x', readFile, allowUnknown }));
    }),
    { seed: 7, numRuns: 1000 },
  );
});

test('the dotted form of a JSON flag equals its JSON form', () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
  const primitive = fc.oneof(
    fc.boolean(),
    fc.integer(),
    fc.string(),
    fc.constant(null),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  fc.assert(
    fc.property(
      fc.dictionary(key, primitive, { minKeys: 1, maxKeys: 6 }),
      fc.constantFrom('--speculative-config', '--attention-config', '-cc', '--kv-transfer-config'),
      (obj, flag) => {
        const json = parseVllmArgs(tokensFromArgv([flag, JSON.stringify(obj)]), { baseDir: '.' });
        const dotted = parseVllmArgs(
          tokensFromArgv(Object.entries(obj).map(([k, v]) => `${flag}.${k}=${JSON.stringify(v)}`)),
          { baseDir: '.' },
        );
        const dest = [...json.args.keys()][0];
        assert.deepEqual(dotted.args.get(dest)?.value, json.args.get(dest)?.value);
      },
    ),
    { seed: 11, numRuns: 500 },
  );
});

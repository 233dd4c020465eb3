import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokensFromArgv } from '../../argv-token.js';
import { parseSglangArgv } from './argparse.js';
import { loadTable, tableFor } from './flag-table.js';

const main = loadTable('main');
const parse = (...argv: string[]) => parseSglangArgv(tokensFromArgv(argv), main);
const value = (p: ReturnType<typeof parse>, field: string) => p.args.get(field)?.value;

test('--x v and --x=v; a dest renamed by from_cli_args lands in its ServerArgs field', () => {
  const p = parse('--model-path', 'm', '--tensor-parallel-size=4', '--kv-cache-dtype', 'fp8_e4m3');
  assert.deepEqual(p.problems, []);
  assert.equal(value(p, 'model_path'), 'm');
  assert.equal(value(p, 'tp_size'), 4);
  assert.equal(value(p, 'kv_cache_dtype'), 'fp8_e4m3');
});

test('argparse prefix abbreviations: unique prefixes resolve (noted), ambiguous ones are flag problems', () => {
  const p = parse('--model-path', 'm', '--tp', '2', '--mem-frac', '0.8', '--enable-dp-attent');
  assert.equal(value(p, 'tp_size'), 2);
  assert.equal(value(p, 'mem_fraction_static'), 0.8);
  assert.ok(p.notes.some((n) => /--tp is read as --tp-size/.test(n.message)));
  const [ambiguous] = p.flagProblems;
  assert.equal(ambiguous.kind, 'ambiguous');
  assert.equal(ambiguous.option, '--enable-dp-attent');
  assert.ok(ambiguous.candidates?.includes('--enable-dp-attention'));
});

test('no _ respelling and no --no-x forms: both are unrecognized, as in SGLang', () => {
  const p = parse('--model-path', 'm', '--tp_size', '2', '--no-disable-radix-cache');
  assert.deepEqual(
    p.flagProblems.map((x) => [x.kind, x.option]),
    [
      ['unknown', '--tp_size'],
      ['unknown', '--no-disable-radix-cache'],
    ],
  );
  assert.equal(p.flagProblems[0].suggestion, '--tp-size');
});

test('store_true takes no value; --flag=value is argparse’s "ignored explicit argument"', () => {
  const p = parse('--model-path', 'm', '--disable-radix-cache', '--enable-dp-attention=true');
  assert.equal(value(p, 'disable_radix_cache'), true);
  assert.equal(value(p, 'enable_dp_attention'), undefined);
  assert.match(p.problems[0].message, /ignored explicit argument 'true'/);
});

test('types and choices as SGLang converts them', () => {
  const bad = parse('--model-path', 'm', '--tp-size', 'two', '--kv-cache-dtype', 'fp9', '--page-size', '1_6');
  const msgs = bad.problems.map((x) => x.message);
  assert.ok(msgs.some((m) => /invalid int value: 'two'/.test(m)));
  // A choice outside the table may be a newer release's: a flag problem, the value kept as written.
  assert.deepEqual(
    bad.flagProblems.map((x) => [x.kind, x.option, x.value]),
    [['choice', '--kv-cache-dtype', 'fp9']],
  );
  assert.equal(value(bad, 'kv_cache_dtype'), 'fp9');
  assert.equal(value(bad, 'page_size'), 16, 'Python int() accepts underscores');
  const list = parse('--model-path', 'm', '--lora-paths', 'a=/x', 'b=/y', '--tp-size', '2');
  assert.deepEqual(value(list, 'lora_paths'), ['a=/x', 'b=/y']);
  assert.equal(value(list, 'tp_size'), 2);
});

test('values known only at run time ($(VAR), $VAR) are kept as written, noted, not errors', () => {
  const p = parse('--model-path', '$(MODEL_PATH)', '--nnodes', '$(LWS_GROUP_SIZE)');
  assert.deepEqual(p.problems, []);
  assert.equal(value(p, 'nnodes'), '$(LWS_GROUP_SIZE)');
  assert.ok(
    p.notes.some((n) => /--nnodes \$\(LWS_GROUP_SIZE\): the value is set at run time/.test(n.message)),
  );
});

test('an unknown flag is a problem but its value is kept under its spelled name (a newer release may know it)', () => {
  const p = parse('--model-path', 'm', '--dsv4-attn-backend', 'trtllm', '--tp-size', '8');
  assert.equal(value(p, 'dsv4_attn_backend'), 'trtllm');
  assert.equal(value(p, 'tp_size'), 8);
  assert.deepEqual(
    p.flagProblems.map((x) => [x.kind, x.option]),
    [['unknown', '--dsv4-attn-backend']],
  );
  assert.deepEqual(p.problems, []);
});

test('a BooleanOptionalAction flag takes no value and has a --no-x form that stores False (SGLang 0.5.11+)', () => {
  const t = tableFor('0.5.12.post1').table;
  const on = parseSglangArgv(
    tokensFromArgv(['--model-path', 'm', '--lora-strict-loading', '--tp-size', '2']),
    t,
  );
  assert.deepEqual([...on.problems, ...on.flagProblems], []);
  assert.equal(on.args.get('lora_strict_loading')?.value, true);
  assert.equal(on.args.get('tp_size')?.value, 2);
  const off = parseSglangArgv(tokensFromArgv(['--model-path', 'm', '--no-lora-strict-loading']), t);
  assert.deepEqual([...off.problems, ...off.flagProblems], []);
  assert.equal(off.args.get('lora_strict_loading')?.value, false);
  const old = parseSglangArgv(
    tokensFromArgv(['--model-path', 'm', '--no-lora-strict-loading']),
    tableFor('0.5.6').table,
  );
  assert.deepEqual(
    old.flagProblems.map((x) => [x.kind, x.option]),
    [['unknown', '--no-lora-strict-loading']],
  );
});

test('the flag table follows the release: 0.4.6 knows fewer KV dtypes and no --speculative-algorithm NGRAM', () => {
  const old = tableFor('0.4.6.post5').table;
  const p = parseSglangArgv(
    tokensFromArgv(['--model-path', 'm', '--kv-cache-dtype', 'bf16', '--speculative-algorithm', 'NGRAM']),
    old,
  );
  assert.equal(p.flagProblems.length, 2);
  const now = tableFor('0.5.6.post2').table;
  const current = parseSglangArgv(
    tokensFromArgv(['--model-path', 'm', '--kv-cache-dtype', 'bf16', '--speculative-algorithm', 'NGRAM']),
    now,
  );
  assert.deepEqual([...current.problems, ...current.flagProblems], []);
});

/**
 * data/llama-cpp-flags/<tag>.json (scripts/llama-cpp-flags/extract-llama-cpp-flags.mjs wrote it from
 * llama.cpp's common/arg.cpp) holds the facts a llama-server launch is linted against: names,
 * negated names, kinds, choices, env variables, which options llama-server gets. This test checks
 * those facts; test/slow/llama-cpp-flag-table-reproduces.test.ts checks that re-extracting from
 * node-llama-cpp's bundled llama.cpp gives the committed table byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import type { LlamaCppFlagTable, LlamaCppOption } from './engines/llama-cpp/flag-table.js';

type LlamaOption = LlamaCppOption;

const TABLE = 'v0.4.0.json';
const dir = join(packageRoot, 'data', 'llama-cpp-flags');
const table = JSON.parse(readFileSync(join(dir, TABLE), 'utf8')) as LlamaCppFlagTable;
const serverOptions = table.options.filter((o) => o.server);

/** The option llama-server reads for `name` (a spelling or a negated spelling). */
function server(name: string): LlamaOption {
  const hits = serverOptions.filter((o) => o.names.includes(name) || o.negatives?.includes(name));
  assert.equal(hits.length, 1, `${name}: ${hits.length} llama-server options`);
  return hits[0];
}

test('the table names its source and its counts agree with its options', () => {
  assert.equal(table.llamaCppTag, 'v0.4.0');
  assert.equal(table.source.repository, 'ggml-org/llama.cpp');
  assert.equal(table.source.tag, table.llamaCppTag);
  assert.match(table.source.commit, /^[0-9a-f]{40}$/);
  assert.ok(Number.isFinite(Date.parse(table.source.date)), table.source.date);
  assert.equal(typeof table.source.subject, 'string');
  assert.ok(table.source.files.includes('common/arg.cpp'));
  assert.equal(table.generator, 'scripts/llama-cpp-flags/extract-llama-cpp-flags.mjs');
  const c = table.counts;
  assert.equal(c.addOptFound, c.addOptParsed);
  assert.equal(c.addOptParsed, table.options.length);
  assert.ok(table.options.length > 300);
  assert.equal(c.serverOptions, serverOptions.length);
  const envs = new Set(table.options.flatMap((o) => [o.env, o.envNegative].filter(Boolean)));
  assert.equal(c.envVars, envs.size);
  for (const o of table.options) {
    assert.ok(['switch', 'int', 'float', 'string'].includes(o.kind), `${o.names[0]}: kind ${o.kind}`);
    assert.equal(
      o.value === null,
      o.kind === 'switch',
      `${o.names[0]}: a switch has no value, a value has a kind`,
    );
  }
  // every spelling names one llama-server option
  const seen = new Set<string>();
  for (const o of serverOptions) {
    for (const n of [...o.names, ...(o.negatives ?? [])]) {
      assert.ok(!seen.has(n), `${n} twice`);
      seen.add(n);
    }
  }
});

test('KV cache types: -ctk/--cache-type-k and -ctv/--cache-type-v', () => {
  const k = server('--cache-type-k');
  assert.deepEqual(k.names, ['-ctk', '--cache-type-k']);
  assert.equal(k.env, 'LLAMA_ARG_CACHE_TYPE_K');
  assert.equal(k.kind, 'string');
  assert.deepEqual(k.choices, ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1']);
  assert.ok(k.choices.includes('q8_0') && k.choices.includes('q4_0'));
  assert.equal(k.default, 'f16');
  const v = server('-ctv');
  assert.equal(v.env, 'LLAMA_ARG_CACHE_TYPE_V');
  assert.deepEqual(v.choices, k.choices);
  assert.equal(server('-ctkd').env, 'LLAMA_ARG_SPEC_DRAFT_CACHE_TYPE_K');
});

test('-fa/--flash-attn takes on|off|auto (and the truthy/falsey spellings), default auto', () => {
  const fa = server('-fa');
  assert.deepEqual(fa.names, ['-fa', '--flash-attn']);
  assert.deepEqual(fa.choices, ['on', 'off', 'auto']);
  assert.equal(fa.default, 'auto');
  assert.equal(fa.env, 'LLAMA_ARG_FLASH_ATTN');
  for (const w of ['on', 'enabled', 'true', '1', 'off', 'disabled', 'false', '0', 'auto', '-1']) {
    assert.ok(fa.accepts?.includes(w), w);
  }
});

test('--swa-full is a plain switch; --context-shift has a negated form', () => {
  const swa = server('--swa-full');
  assert.deepEqual(swa.names, ['--swa-full']);
  assert.equal(swa.kind, 'switch');
  assert.equal(swa.negatives, undefined);
  assert.equal(swa.env, 'LLAMA_ARG_SWA_FULL');
  assert.equal(swa.default, 'false');

  const cs = server('--no-context-shift');
  assert.deepEqual(cs.names, ['--context-shift']);
  assert.deepEqual(cs.negatives, ['--no-context-shift']);
  assert.equal(cs.handler, 'bool');
  assert.equal(cs.env, 'LLAMA_ARG_CONTEXT_SHIFT');
  assert.equal(cs.envNegative, 'LLAMA_ARG_NO_CONTEXT_SHIFT');
  assert.equal(cs.default, 'disabled');
});

test('-np/--parallel: the server definition (auto = -1), not the other tools’ one', () => {
  const np = server('--parallel');
  assert.deepEqual(np.names, ['-np', '--parallel']);
  assert.equal(np.env, 'LLAMA_ARG_N_PARALLEL');
  assert.equal(np.kind, 'int');
  assert.equal(np.default, '-1');
  assert.equal(np.condition, 'ex == LLAMA_EXAMPLE_SERVER');
  assert.equal(table.exampleDefaults.LLAMA_EXAMPLE_SERVER.n_parallel, -1);
  const other = table.options.filter((o) => o.names.includes('-np') && !o.server);
  assert.equal(other.length, 1);
  assert.equal(other[0].condition, '!(ex == LLAMA_EXAMPLE_SERVER)');
});

test('draft model, speculative types, cache reuse, removed draft flags', () => {
  const md = server('-md');
  assert.ok(md.names.includes('--model-draft') && md.names.includes('--spec-draft-model'));
  assert.equal(md.kind, 'string');
  assert.equal(md.env, 'LLAMA_ARG_SPEC_DRAFT_MODEL');
  assert.equal(md.spec, true);
  assert.ok(server('--spec-type').choices?.includes('draft-simple'));
  const reuse = server('--cache-reuse');
  assert.equal(reuse.kind, 'int');
  assert.equal(reuse.env, 'LLAMA_ARG_CACHE_REUSE');
  assert.equal(reuse.default, '0');
  assert.equal(server('--draft-max').removed, true);
});

test('what llama-server does not get', () => {
  const prompt = table.options.find((o) => o.names.includes('--prompt'));
  assert.ok(prompt && !prompt.server && prompt.excludes?.includes('LLAMA_EXAMPLE_SERVER'));
  const ppl = table.options.find((o) => o.names.includes('--hellaswag'));
  assert.ok(ppl && !ppl.server);
  assert.ok(!table.options.some((o) => o.names.includes('load-on-startup')));
  assert.ok(table.presetOptions.some((o) => o.names.includes('load-on-startup')));
});

/**
 * lint --suggest on llama-server launches: a LaunchChange edits the words the way llama-server reads
 * them (llama-argv.ts), and the result reads back with the change in force.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleDeployment } from '../../../test/helpers/hazards/example-deployment.js';
import { applyChange } from './apply-change.js';
import { renderShell } from './render.js';
import { segmentLlamaArgv } from './llama-argv.js';

const apply = (command: string, change: Parameters<typeof applyChange>[2]) => {
  const d = exampleDeployment({ command }, 'llama-argv.sh');
  assert.equal(d.engine, 'llama.cpp');
  const a = applyChange(d, d.argv ?? [], change);
  return { text: renderShell(a.tokens, { env: a.env.set, multiLine: false }), applied: a };
};

test('words are grouped as llama-server consumes them: switches alone, every other option with the next word', () => {
  const words = 'llama-server -m m.gguf --swa-full -fa on -ctk q8_0 --context-shift --port 8080'
    .split(' ')
    .map((text) => ({ text }));
  const g = segmentLlamaArgv(words).groups.map((x) => [
    x.dest,
    words
      .slice(x.start, x.end)
      .map((w) => w.text)
      .join(' '),
  ]);
  assert.deepEqual(g, [
    ['model', '-m m.gguf'],
    ['swa_full', '--swa-full'],
    ['flash_attn', '-fa on'],
    ['cache_type_k', '-ctk q8_0'],
    ['context_shift', '--context-shift'],
    ['port', '--port 8080'],
  ]);
  // an old build's bare -fa before another option takes no value
  const old = 'llama-server -m m.gguf -fa -ngl 99'.split(' ').map((text) => ({ text }));
  assert.deepEqual(
    segmentLlamaArgv(old).groups.map((x) => x.end - x.start),
    [2, 1, 2],
  );
});

test('set keeps the spelling in place, add replaces the option, unset drops every spelling and its LLAMA_ARG_* variable', () => {
  assert.equal(
    apply('llama-server -m m.gguf -ctk q8_0 -ngl 99', { set: { cache_type_k: 'f16' } }).text,
    'llama-server -m m.gguf -ctk f16 -ngl 99',
  );
  assert.equal(
    apply('llama-server -m m.gguf -ngl 99', { set: { cache_type_k: 'f16' } }).text,
    'llama-server -m m.gguf -ngl 99 --cache-type-k f16',
  );
  assert.equal(
    apply('llama-server -m m.gguf --context-shift -c 4096', { add: '--no-context-shift' }).text,
    'llama-server -m m.gguf --no-context-shift -c 4096',
  );
  assert.equal(
    apply('llama-server -m m.gguf -np 2', { add: '--swa-full' }).text,
    'llama-server -m m.gguf -np 2 --swa-full',
  );
  const u = apply('LLAMA_ARG_SPEC_DRAFT_MODEL=d.gguf llama-server -m m.gguf -md d.gguf -ngl 99', {
    unset: 'spec_draft_model',
  });
  assert.equal(u.text, 'llama-server -m m.gguf -ngl 99');
  assert.deepEqual(
    u.applied.env.unset.map((x) => x.value),
    ['LLAMA_ARG_SPEC_DRAFT_MODEL'],
  );
  assert.equal(
    apply('llama-server -m m.gguf -md d.gguf', { add: ['--spec-type', 'draft-simple'] }).text,
    'llama-server -m m.gguf -md d.gguf --spec-type draft-simple',
  );
});

test('the rewritten launch reads back with the change in force', () => {
  const { text } = apply('llama-server -m m.gguf -fa on -ctk q8_0 -ctv q4_0', {
    set: { cache_type_k: 'q8_0', cache_type_v: 'q8_0' },
  });
  const d = exampleDeployment({ command: text }, 'llama-argv-2.sh');
  assert.equal(d.llamaCpp?.facts.cacheTypeV?.value, 'q8_0');
  assert.equal(d.llamaCpp?.facts.cacheTypeK?.value, 'q8_0');
  assert.deepEqual(d.flagProblems, []);
});

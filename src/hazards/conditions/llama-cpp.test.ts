/** Condition details the catalog's table tests do not cover (conditions/llama-cpp.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleDeployment } from '../../../test/helpers/hazards/example-deployment.js';
import {
  kRotationOff,
  kShift,
  modelArchitecture,
  ollamaVersionRange,
  parallelSlots,
  specTypeNone,
} from './llama-cpp.js';

const d = (command: string, model?: string) =>
  exampleDeployment({ command, ...(model ? { model } : {}) }, 'cond.sh');

test('k-rotation-off: LLAMA_ATTN_ROT_DISABLE as atoi reads it, else the K head size of the model config', () => {
  const c = kRotationOff();
  assert.equal(c.check(d('LLAMA_ATTN_ROT_DISABLE=1 llama-server -m m.gguf -ctk q8_0')).status, 'met');
  // atoi("0") and atoi("no") are 0: the rotation stays on for a head size of 128
  assert.equal(
    c.check(d('LLAMA_ATTN_ROT_DISABLE=0 llama-server -m m.gguf', 'gguf-llama-3.1-8b')).status,
    'not-met',
  );
  assert.equal(
    c.check(d('LLAMA_ATTN_ROT_DISABLE=no llama-server -m m.gguf', 'gguf-llama-3.1-8b')).status,
    'not-met',
  );
  const phi = c.check(d('llama-server -m phi-2.Q8_0.gguf -ctk q8_0', 'gguf-phi-2'));
  assert.equal(phi.status, 'met');
  assert.match(phi.detail, /K head size 80/);
  const none = c.check(d('llama-server -m m.gguf -ctk q8_0'));
  assert.equal(none.status, 'unknown');
  assert.match(none.detail, /GGUF file/);
});

test('k-shift: context shift (off by default in v0.4.0) or cache reuse', () => {
  const c = kShift();
  assert.equal(c.check(d('llama-server -m m.gguf')).status, 'not-met');
  assert.equal(c.check(d('llama-server -m m.gguf --context-shift')).status, 'met');
  assert.equal(c.check(d('llama-server -m m.gguf --cache-reuse 256')).status, 'met');
  assert.equal(c.check(d('llama-server -m m.gguf --cache-reuse 0')).status, 'not-met');
  assert.equal(c.check(d('LLAMA_ARG_CONTEXT_SHIFT=1 llama-server -m m.gguf')).status, 'met');
});

test('parallel-slots: the auto default is 4 slots (byDefault), -np 1 is one', () => {
  const c = parallelSlots(2);
  const auto = c.check(d('llama-server -m m.gguf'));
  assert.equal(auto.status, 'met');
  assert.equal(auto.byDefault, true);
  assert.equal(c.check(d('llama-server -m m.gguf -np 1')).status, 'not-met');
});

test('spec-type-none: a draft that may be an MTP or DFlash sidecar lets llama-server infer the type', () => {
  const c = specTypeNone();
  assert.equal(c.check(d('llama-server -m m.gguf -md draft.gguf')).status, 'met');
  assert.equal(c.check(d('llama-server -m m.gguf -md Qwen3.6-27B-MTP.gguf')).status, 'unknown');
  assert.equal(c.check(d('llama-server -m m.gguf -md d.gguf --spec-type draft-simple')).status, 'not-met');
});

test('spec-type-none: a launch using the removed --draft-max was written for a build where -md alone speculates', () => {
  const c = specTypeNone();
  const legacy = c.check(d('llama-server -m m.gguf -md draft.gguf --draft-max 16'));
  assert.equal(legacy.status, 'unknown');
  assert.match(legacy.detail, /--draft-max is a flag of builds before --spec-type/);
  // the current flag for the same setting says nothing about the build
  assert.equal(c.check(d('llama-server -m m.gguf -md draft.gguf --spec-draft-n-max 16')).status, 'met');
});

test('spec-type-none: an unquoted run-time expansion may set any option left at its default', () => {
  const c = specTypeNone();
  const spread = c.check(d('llama-server -m m.gguf -md draft.gguf $EXTRA_ARGS'));
  assert.equal(spread.status, 'unknown');
  assert.match(spread.detail, /run time|EXTRA_ARGS/);
  // quoted, the expansion is one word: a value, not options
  assert.equal(c.check(d('llama-server -m m.gguf -md draft.gguf --alias "$EXTRA_ARGS"')).status, 'met');
});

test('model-architecture: a model named for another family is ruled out; an anonymous file stays unknown', () => {
  const c = modelArchitecture({ archs: ['gpt-oss', 'gpt_oss'], what: 'gpt-oss', modelNames: /gpt-oss/i });
  assert.equal(c.check(d('llama-server -m /models/gpt-oss-20b-mxfp4.gguf')).status, 'met');
  const llama = c.check(d('llama-server -m /models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf'));
  assert.equal(llama.status, 'not-met');
  assert.match(llama.detail, /a Llama model: not gpt-oss by its name/);
  assert.equal(c.check(d('llama-server -m /models/model.gguf')).status, 'unknown');
  // the GGUF header outranks the name
  assert.equal(c.check(d('llama-server -m gpt-oss.gguf', 'gguf-llama-3.1-8b')).status, 'not-met');
});

test('ollama-version: from the image tag; between the known-good and known-bad releases is unknown', () => {
  const c = ollamaVersionRange({ lastGood: '0.24.0', firstBad: '0.30.0', record: 'r' });
  const at = (tag: string) =>
    c.check(d(`docker run -d -e OLLAMA_KV_CACHE_TYPE=q8_0 ollama/ollama:${tag}`)).status;
  assert.equal(at('0.30.1'), 'met');
  assert.equal(at('0.24.0'), 'not-met');
  assert.equal(at('0.27.2'), 'unknown');
  assert.equal(at('latest'), 'unknown');
});

/**
 * The capability check and what the suites make of it: a server that refuses token-id generation is
 * a usage error naming the capability, why and what to do, before any prompt; a server error is
 * not a missing capability (the suite runs and records it); an SGLang server is refused by the
 * workload suite with a hint; a replayed trace must not need what the servers lack.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { checkCapabilities, formatCapabilities, supportOf, type CapabilityReport } from './capabilities.js';
import { ProbeClient } from './client.js';
import { ServerApi } from './server-api.js';
import { requireForPromptSuites, requireForReplay, workloadFamilies } from './suite-needs.js';
import { startFakeServer, type FakeServerOptions } from './testing/fake-server.js';
import { trainByteNgram } from './testing/ngram-lm.js';

const corpus = readFileSync(new URL('../../test/fixtures/probe/prose-sample.txt', import.meta.url), 'utf8');
const lm = trainByteNgram(corpus.slice(0, 6000), 4);

async function ask(
  over: Partial<FakeServerOptions>,
  scope: 'generation' | 'workload' = 'workload',
): Promise<CapabilityReport> {
  const s = await startFakeServer({ lm, maxModelLen: 256, ...over });
  try {
    const api = new ServerApi(new ProbeClient({ baseUrl: s.url, maxRetries: 0 }));
    await api.resolveModel();
    const prompt = Array.from(corpus.slice(0, 20), (ch) => ch.charCodeAt(0));
    const r = await checkCapabilities({ url: s.url }, api, { prompt, logprobs: 3, seed: 1, scope });
    await api.client.close();
    return r;
  } finally {
    await s.close();
  }
}

test('a server that refuses the generation request: token-id-generation NO, and the window suite refuses to start with a hint', async () => {
  const r = await ask(
    {
      faults: (p) =>
        p === '/v1/completions'
          ? { kind: 'status', status: 400, body: '{"error":{"message":"prompt must be a string"}}' }
          : undefined,
    },
    'generation',
  );
  const c = supportOf(r, 'token-id-generation')!;
  assert.equal(c.support, 'no');
  assert.match(c.detail, /refused \(HTTP 400\).*prompt must be a string/);
  assert.throws(
    () => requireForPromptSuites('window-crossing', { target: { url: 'http://t', report: r } }),
    (e: unknown) =>
      e instanceof UserError &&
      /the window-crossing suite needs token-id-generation from the target at http:\/\/t/.test(e.message) &&
      /Ollama and TGI take text prompts only/.test(e.hint ?? ''),
  );
});

test('a server that answers 500: unverified, not missing — the suite runs and records its failures', async () => {
  const r = await ask(
    { faults: (p) => (p === '/v1/completions' ? { kind: 'status', status: 500 } : undefined) },
    'generation',
  );
  assert.equal(supportOf(r, 'token-id-generation')!.support, 'unverified');
  requireForPromptSuites('window-crossing', { target: { url: 'http://t', report: r } });
});

test('a llama-server reference is refused before any request: it cannot score the target\'s tokens; as the target it is fine', () => {
  const llama: CapabilityReport = {
    api: 'llama-server',
    checks: [{ name: 'token-id-generation', support: 'yes', detail: 'POST /completion' }],
  };
  const openai: CapabilityReport = { ...llama, api: 'openai' };
  assert.throws(
    () =>
      requireForPromptSuites('window-crossing', {
        target: { url: 'http://t', report: openai },
        reference: { url: 'http://r', report: llama },
      }),
    (e: unknown) =>
      e instanceof UserError &&
      /reference at http:\/\/r is a llama-server, which cannot score/.test(e.message) &&
      /make llama-server the --target/.test(e.hint ?? ''),
  );
  requireForPromptSuites('window-crossing', {
    target: { url: 'http://t', report: llama },
    reference: { url: 'http://r', report: openai },
  });
});

test('the workload suite with a target that cannot generate from token ids: refused before the trace', async () => {
  const r: CapabilityReport = {
    api: 'openai',
    checks: [{ name: 'token-id-generation', support: 'no', detail: 'x' }],
  };
  assert.throws(
    () => workloadFamilies({ target: { url: 'http://t', report: r } }),
    /the workload suite needs token-id-generation/,
  );
});

test('the workload questions on the fake: no n > 1, no metrics, streaming as one body; the text report lists each', async () => {
  const r = await ask({});
  const lines = formatCapabilities('target', r).join('\n');
  assert.match(lines, /parallel-sampling: NO/);
  assert.match(lines, /kv-capacity: NO — GET \/metrics: HTTP 404/);
  assert.match(lines, /streaming: yes — the whole completion in one event/);
  const f = workloadFamilies({ target: { url: 'http://t', report: r } });
  assert.deepEqual(f.leftOut, ['parallel']);
  requireForReplay(new Set(['cancel', 'prompt-logprobs']), f.leftOut, f.notes);
  assert.throws(
    () => requireForReplay(new Set(['parallel']), f.leftOut, f.notes),
    (e: unknown) => e instanceof UserError && /replayed trace has parallel requests/.test(e.message),
  );
});

test('an SGLang server: the workload suite says it speaks vLLM requests, with what to run instead', () => {
  const r: CapabilityReport = {
    api: 'sglang',
    checks: [{ name: 'token-id-generation', support: 'yes', detail: 'POST /generate' }],
  };
  assert.throws(
    () => workloadFamilies({ target: { url: 'http://s', report: r } }),
    (e: unknown) => e instanceof UserError && /--suite window-crossing/.test(e.hint ?? ''),
  );
});

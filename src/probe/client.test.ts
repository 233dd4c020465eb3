import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeBaseUrl, ProbeClient, RetryBudget } from './client.js';
import { startFakeServer, type Fault } from './testing/fake-server.js';
import { trainByteNgram } from './testing/ngram-lm.js';

const lm = trainByteNgram('the cat sat on the mat. the dog sat on the log.', 3);
const noSleep = { sleep: async () => {} };

async function withServer(
  faults: (path: string, i: number) => Fault | undefined,
  fn: (url: string) => Promise<void>,
  extra: { apiKey?: string } = {},
) {
  const s = await startFakeServer({ lm, faults, ...extra });
  try {
    await fn(s.url);
  } finally {
    await s.close();
  }
}

test('base URLs lose a trailing slash and /v1', () => {
  assert.equal(normalizeBaseUrl('http://h:8000/v1/'), 'http://h:8000');
  assert.equal(normalizeBaseUrl('http://h:8000'), 'http://h:8000');
});

test('a 500 followed by success: ok, with the failed attempt recorded', async () => {
  await withServer(
    (_p, i) => (i === 0 ? { kind: 'status', status: 500 } : undefined),
    async (url) => {
      const c = new ProbeClient({ baseUrl: url, ...noSleep });
      const r = await c.getJson('/v1/models');
      assert.equal(r.ok, true);
      assert.equal(r.attempts.length, 1);
      assert.equal(r.attempts[0].status, 500);
      await c.close();
    },
  );
});

test('persistent 503: gives up after maxRetries + 1 attempts, every one recorded', async () => {
  await withServer(
    () => ({ kind: 'status', status: 503 }),
    async (url) => {
      const slept: number[] = [];
      const c = new ProbeClient({ baseUrl: url, maxRetries: 2, sleep: async (ms) => void slept.push(ms) });
      const r = await c.getJson('/v1/models');
      assert.equal(r.ok, false);
      assert.equal(r.attempts.length, 3);
      assert.match(r.ok ? '' : r.error, /HTTP 503: injected 503 \(gave up after 3 attempts\)/);
      assert.equal(slept.length, 2);
      assert.ok(slept[1] >= slept[0] * 0.5, 'backoff grows (with jitter)');
      await c.close();
    },
  );
});

test('400 is not retried: the request itself is wrong', async () => {
  await withServer(
    () => ({
      kind: 'status',
      status: 400,
      body: JSON.stringify({ error: { message: 'prompt_logprobs unsupported' } }),
    }),
    async (url) => {
      const c = new ProbeClient({ baseUrl: url, ...noSleep });
      const r = await c.postJson('/v1/completions', {});
      assert.equal(r.ok, false);
      assert.equal(r.attempts.length, 1);
      assert.match(r.ok ? '' : r.error, /prompt_logprobs unsupported/);
      await c.close();
    },
  );
});

test('429 honours Retry-After (bounded by the backoff cap)', async () => {
  await withServer(
    (_p, i) => (i === 0 ? { kind: 'status', status: 429, retryAfter: '2' } : undefined),
    async (url) => {
      const slept: number[] = [];
      const c = new ProbeClient({ baseUrl: url, sleep: async (ms) => void slept.push(ms) });
      assert.equal((await c.getJson('/v1/models')).ok, true);
      assert.equal(slept[0], 2000);
      await c.close();
    },
  );
});

test('truncated JSON, connection resets and slow answers (undici timers tick at ~1 s) fail after retries, never succeed silently', async () => {
  for (const fault of [{ kind: 'truncate' }, { kind: 'reset' }, { kind: 'slow', ms: 2500 }] as Fault[]) {
    await withServer(
      () => fault,
      async (url) => {
        const c = new ProbeClient({ baseUrl: url, maxRetries: 1, timeouts: { headersMs: 100 }, ...noSleep });
        const r = await c.postJson('/tokenize', { prompt: 'x' });
        assert.equal(r.ok, false, fault.kind);
        assert.equal(r.attempts.length, 2, fault.kind);
        const pattern = {
          truncate: /not valid JSON/,
          reset: /ECONNRESET|UND_ERR_SOCKET|other side closed/,
          slow: /UND_ERR_HEADERS_TIMEOUT/,
          status: /x/,
        }[fault.kind];
        assert.match(r.attempts[0].error, pattern);
        await c.close();
      },
    );
  }
});

test('an unreachable server fails with the connection error', async () => {
  const s = await startFakeServer({ lm });
  const url = s.url;
  await s.close();
  const c = new ProbeClient({ baseUrl: url, maxRetries: 1, ...noSleep });
  const r = await c.getJson('/health');
  assert.equal(r.ok, false);
  assert.match(r.attempts[0].error, /ECONNREFUSED/);
  await c.close();
});

test('the run-wide retry budget bounds retries across calls', async () => {
  await withServer(
    () => ({ kind: 'status', status: 500 }),
    async (url) => {
      const budget = new RetryBudget(3);
      const c = new ProbeClient({ baseUrl: url, maxRetries: 5, budget, ...noSleep });
      const a = await c.getJson('/v1/models');
      const b = await c.getJson('/v1/models');
      assert.equal(a.attempts.length, 4, '3 retries, then the budget is spent');
      assert.equal(b.attempts.length, 1);
      assert.match(b.ok ? '' : b.error, /retry budget spent/);
      await c.close();
    },
  );
});

test('the API key is sent as a bearer token and scrubbed from every message', async () => {
  const key = 'sk-very-secret-123';
  await withServer(
    () => undefined,
    async (url) => {
      const good = new ProbeClient({ baseUrl: url, apiKey: key, ...noSleep });
      assert.equal((await good.getJson('/v1/models')).ok, true);
      const bad = new ProbeClient({ baseUrl: url, apiKey: 'sk-wrong-key-456', ...noSleep });
      const r = await bad.getJson('/v1/models');
      assert.equal(r.ok, false);
      // the fake echoes the offending header back; the client must not repeat it
      assert.doesNotMatch(JSON.stringify(r), /sk-wrong-key-456/);
      assert.match(r.ok ? '' : r.error, /HTTP 401: bad key Bearer \*\*\*/);
      assert.equal(
        new ProbeClient({ baseUrl: 'http://user:pw@127.0.0.1:1/v1' }).displayUrl,
        'http://127.0.0.1:1',
      );
      await good.close();
      await bad.close();
    },
    { apiKey: key },
  );
});

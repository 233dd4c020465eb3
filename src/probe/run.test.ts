import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runProbe, type ProbeConfig } from './run.js';
import { startFakeServer, type FakeServer, type FakeServerOptions } from './testing/fake-server.js';
import { trainByteNgram, type LanguageModel } from './testing/ngram-lm.js';

const corpus = readFileSync(new URL('../../test/fixtures/probe/prose-sample.txt', import.meta.url), 'utf8');
let lm: LanguageModel;
before(() => {
  lm = trainByteNgram(corpus, 5);
});

const WINDOW = 32;

async function withServers(
  ref: Partial<FakeServerOptions>,
  cand: Partial<FakeServerOptions>,
  fn: (r: FakeServer, c: FakeServer) => Promise<void>,
) {
  const r = await startFakeServer({ lm, ...ref });
  const c = await startFakeServer({ lm, ...cand });
  try {
    await fn(r, c);
  } finally {
    await r.close();
    await c.close();
  }
}

function config(target: string, reference: string | undefined, over: Partial<ProbeConfig> = {}): ProbeConfig {
  return {
    target: { url: target },
    reference: reference === undefined ? undefined : { url: reference },
    suite: 'window-crossing',
    corpus,
    window: WINDOW,
    pageSize: 8,
    requests: 40,
    maxTokens: 24,
    concurrency: 4,
    seed: 1,
    logprobs: 5,
    client: { sleep: async () => {}, maxRetries: 1, timeouts: { headersMs: 200 } },
    ...over,
  };
}

const corruption = { afterPosition: WINDOW, rate: 0.15, seed: 3 };

test('benign noise on the candidate: CLEAN, some requests drift, none corrupt', async () => {
  await withServers({}, { noise: { sigma: 0.05, seed: 9 } }, async (r, c) => {
    const rep = await runProbe(config(c.url, r.url));
    assert.equal(rep.verdict, 'CLEAN', rep.reason);
    assert.equal(rep.counts.corrupt, 0);
    assert.equal(rep.counts.failed, 0);
    assert.equal(rep.counts.judged, 29, 'the rule of three stops the run at 29 clean requests');
    assert.ok(rep.counts.benignDrift > 0, 'the noise must actually make some requests drift');
    assert.match(rep.reason, /rate ≤ 9\.8%/);
  });
});

test('corruption past the window: CORRUPT within a few requests, every corrupt token past the window', async () => {
  await withServers({}, { corruption: { ...corruption, boost: 20 } }, async (r, c) => {
    const rep = await runProbe(config(c.url, r.url));
    assert.equal(rep.verdict, 'CORRUPT', rep.reason);
    assert.ok(rep.counts.judged <= 6, `decided after ${rep.counts.judged} requests`);
    assert.ok(rep.tokens.corrupt > 0);
    assert.equal(rep.corruptPositions.withinWindow, 0);
    assert.ok(rep.corruptPositions.minSinceWindow! > 0);
    assert.ok(rep.examples.length > 0);
    assert.match(rep.examples[0].candidate, /⟦.+⟧/s);
    assert.ok(
      rep.requests.some((q) => q.judgement.crossScore && q.judgement.crossScore.counts.implausible > 0),
      'cross-scoring finds implausible tokens',
    );
  });
});

test('the short suite on the same corrupting pair stays within the window: CLEAN', async () => {
  await withServers({}, { corruption }, async (r, c) => {
    const rep = await runProbe(config(c.url, r.url, { suite: 'short' }));
    assert.equal(rep.verdict, 'CLEAN', rep.reason);
    const last = Math.max(...rep.requests.map((q) => q.promptTokens.length + q.maxTokens - 1));
    assert.ok(last < WINDOW, `last generated position ${last}`);
  });
});

test('a target that always answers 500: INCONCLUSIVE with the errors listed, never CLEAN', async () => {
  await withServers(
    {},
    { faults: (p) => (p === '/v1/completions' ? { kind: 'status', status: 500 } : undefined) },
    async (r, c) => {
      const rep = await runProbe(config(c.url, r.url));
      assert.equal(rep.verdict, 'INCONCLUSIVE');
      assert.equal(rep.counts.failed, rep.counts.planned);
      assert.match(rep.reason, /40 of 40 requests failed/);
      assert.match(rep.errors[0].message, /POST \/v1\/completions: HTTP 500/);
    },
  );
});

test('truncated JSON, resets and timeouts on some requests: INCONCLUSIVE, not CLEAN', async () => {
  const faults = [{ kind: 'truncate' }, { kind: 'reset' }, { kind: 'slow', ms: 1500 }] as const;
  for (const fault of faults) {
    await withServers(
      {},
      { faults: (p, i) => (p === '/v1/completions' && i % 4 === 0 ? fault : undefined) },
      async (r, c) => {
        const rep = await runProbe(
          config(c.url, r.url, {
            client: { sleep: async () => {}, maxRetries: 0, timeouts: { headersMs: 200 } },
            concurrency: 8,
          }),
        );
        assert.equal(rep.verdict, 'INCONCLUSIVE', `${fault.kind}: ${rep.reason}`);
        assert.ok(rep.counts.failed >= 8, `${fault.kind}: ${rep.counts.failed} failed`);
        assert.ok(rep.errors.length > 0);
        for (const q of rep.requests.filter((x) => x.judgement.verdict === 'failed'))
          assert.ok(q.judgement.errors.length > 0);
      },
    );
  }
});

test('transient 503s are retried and do not spoil the verdict', async () => {
  await withServers(
    {},
    {
      faults: (p, i) =>
        p === '/v1/completions' && i % 3 === 0 ? { kind: 'status', status: 503 } : undefined,
    },
    async (r, c) => {
      const rep = await runProbe(config(c.url, r.url, { client: { sleep: async () => {}, maxRetries: 3 } }));
      assert.equal(rep.verdict, 'CLEAN', rep.reason);
      assert.ok(
        rep.errors.some((e) => /HTTP 503/.test(e.message)),
        'the retried failures are still reported',
      );
    },
  );
});

test('every sampling field is explicit, prompts are token ids, temperature is 0', async () => {
  await withServers({}, {}, async (r, c) => {
    await runProbe(config(c.url, r.url, { requests: 2, earlyStop: false }));
    const body = c.completionBodies[0];
    for (const field of [
      'temperature',
      'top_p',
      'top_k',
      'min_p',
      'presence_penalty',
      'frequency_penalty',
      'repetition_penalty',
      'seed',
      'max_tokens',
      'ignore_eos',
      'logprobs',
      'return_tokens_as_token_ids',
    ])
      assert.ok(field in body, field);
    assert.equal(body.temperature, 0);
    assert.ok(Array.isArray(body.prompt) && (body.prompt as unknown[]).every(Number.isInteger));
    assert.equal(body.model, 'fake-swa');
  });
});

test('the verdict does not depend on concurrency (given a deterministic server)', async () => {
  await withServers(
    {},
    { noise: { sigma: 0.3, seed: 2, perCall: false }, corruption: { ...corruption, rate: 0.02 } },
    async (r, c) => {
      const a = await runProbe(config(c.url, r.url, { concurrency: 1, requests: 12, earlyStop: false }));
      const b = await runProbe(config(c.url, r.url, { concurrency: 6, requests: 12, earlyStop: false }));
      assert.deepEqual(
        a.requests.map((q) => q.judgement.verdict),
        b.requests.map((q) => q.judgement.verdict),
      );
    },
  );
});

test('scoring falls back to echo when the reference ignores prompt_logprobs', async () => {
  await withServers({ promptLogprobs: false }, { corruption }, async (r, c) => {
    const rep = await runProbe(config(c.url, r.url));
    assert.equal(rep.verdict, 'CORRUPT', rep.reason);
    assert.ok(r.completionBodies.some((b) => b.echo === true));
  });
});

test('golden: record the reference, replay against a corrupt and a clean target', async () => {
  await withServers({}, { corruption }, async (r, c) => {
    const first = await runProbe(config(r.url, r.url, { requests: 30, earlyStop: false }));
    assert.equal(first.verdict, 'CLEAN');
    const golden = { path: 'golden.json', recording: first.golden! };
    assert.equal(golden.recording.exchanges.length, 30);
    const bad = await runProbe(config(c.url, undefined, { golden }));
    assert.equal(bad.verdict, 'CORRUPT', bad.reason);
    assert.equal(bad.mode, 'golden');
    const good = await runProbe(config(r.url, undefined, { golden }));
    assert.equal(good.verdict, 'CLEAN', good.reason);
    assert.equal(good.counts.identical, 29);
  });
});

test('golden + a live scorer: divergent continuations are cross-scored, as with a reference server', async () => {
  await withServers({}, { corruption }, async (r, c) => {
    const first = await runProbe(config(r.url, r.url, { requests: 30, earlyStop: false }));
    const golden = { path: 'golden.json', recording: first.golden! };
    const plain = await runProbe(config(c.url, undefined, { golden, earlyStop: false }));
    const isScoring = (b: Record<string, unknown>) => b.prompt_logprobs !== undefined || b.echo === true;
    const scoringBefore = r.completionBodies.filter(isScoring).length;
    const scored = await runProbe(config(c.url, undefined, { golden, scorer: { url: r.url }, earlyStop: false }));
    assert.equal(scored.mode, 'golden');
    assert.equal(scored.reference.scorer, r.url);
    const divergent = scored.requests.filter((q) => q.judgement.verdict !== 'identical');
    assert.ok(divergent.length > 0);
    assert.ok(divergent.every((q) => q.scores !== undefined), 'every divergent request is scored');
    assert.ok(plain.requests.every((q) => q.scores === undefined), 'without a scorer nothing is scored');
    assert.equal(r.completionBodies.filter(isScoring).length - scoringBefore, divergent.length);
    assert.ok(scored.tokens.corrupt > plain.tokens.corrupt, `${scored.tokens.corrupt} vs ${plain.tokens.corrupt} corrupt tokens`);
    assert.ok(!scored.notes.some((n) => /not cross-scored/.test(n)));
  });
});

test('a scorer without a golden is a usage error', async () => {
  await assert.rejects(
    runProbe(config('http://127.0.0.1:9', 'http://127.0.0.1:9', { scorer: { url: 'http://127.0.0.1:9' } })),
    /scoring server only goes with a golden/,
  );
});

test('a golden exchange recorded as failed is a failed request, never clean', async () => {
  await withServers({}, {}, async (r) => {
    const first = await runProbe(config(r.url, r.url, { requests: 30, earlyStop: false }));
    const recording = structuredClone(first.golden!);
    for (const e of recording.exchanges.slice(0, 5)) {
      delete e.steps;
      e.error = 'HTTP 500';
    }
    const rep = await runProbe(config(r.url, undefined, { golden: { path: 'g.json', recording } }));
    assert.equal(rep.verdict, 'INCONCLUSIVE', rep.reason);
    assert.equal(rep.counts.failed, 5);
    assert.match(rep.requests[0].judgement.errors[0], /HTTP 500/);
  });
});

test('an unreachable target: INCONCLUSIVE at once, saying so', async () => {
  const gone = await startFakeServer({ lm });
  const url = gone.url;
  await gone.close();
  await withServers({}, {}, async (r) => {
    const rep = await runProbe(config(url, r.url));
    assert.equal(rep.verdict, 'INCONCLUSIVE');
    assert.match(rep.reason, /target at .* is unreachable .*ECONNREFUSED.*; no requests were run/);
    assert.equal(rep.counts.planned, 0);
  });
});

/**
 * The canary loop against the in-process fake servers (a byte n-gram LM; the corrupt one boosts wrong
 * tokens past the window), on a fake clock: the verdict metric flips when the target changes, each
 * change is one log line, errors are their own verdict, the schedule keeps its slots.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseExposition, sampleValue } from '../../../test/helpers/prometheus.js';
import { runProbe } from '../run.js';
import { startFakeServer, type FakeServer } from '../testing/fake-server.js';
import { trainByteNgram } from '../testing/ngram-lm.js';
import type { ProbeConfig, ProbeReport } from '../types.js';
import { runCanary, type Clock } from './loop.js';
import { CanaryMetrics } from './metrics.js';
import type { Round } from './round.js';

const corpus = readFileSync(new URL('../../../test/fixtures/probe/prose-sample.txt', import.meta.url), 'utf8');
const WINDOW = 32;
const TARGET = 'http://target.invalid:8000';
let reference: FakeServer;
let corrupt: FakeServer;

before(async () => {
  const lm = trainByteNgram(corpus, 5);
  reference = await startFakeServer({ lm });
  corrupt = await startFakeServer({ lm, corruption: { afterPosition: WINDOW, rate: 0.15, boost: 20, seed: 3 } });
});
after(async () => {
  await Promise.all([reference.close(), corrupt.close()]);
});

function probeOf(target: string): ProbeConfig {
  return {
    target: { url: target },
    reference: { url: reference.url },
    suite: 'window-crossing',
    corpus,
    window: WINDOW,
    pageSize: 8,
    requests: 40,
    maxTokens: 24,
    concurrency: 4,
    seed: 1,
    logprobs: 5,
    client: { sleep: async () => {}, maxRetries: 1, timeouts: { headersMs: 2000 } },
  };
}

/** A clock that only moves when told: each round takes `roundMs`, sleeping jumps to its end. */
function fakeClock(roundMs: (round: number) => number) {
  let t = 1_000_000;
  let round = 0;
  const starts: number[] = [];
  const clock: Clock = {
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
  };
  const run = async (work: () => Promise<ProbeReport>) => {
    starts.push(t);
    const r = await work();
    t += roundMs(round++);
    return r;
  };
  return { clock, run, starts };
}

function scrape(metrics: CanaryMetrics) {
  const m = parseExposition(metrics.render());
  const v = (verdict: string) => sampleValue(m, 'faultline_probe_verdict', { target: TARGET, verdict });
  return { m, clean: v('clean'), corrupt: v('corrupt'), error: v('error'), inconclusive: v('inconclusive') };
}

test('a target switched from clean to corrupt flips faultline_probe_verdict; the change is one log line', async () => {
  const metrics = new CanaryMetrics([TARGET]);
  const stop = new AbortController();
  const { clock, run } = fakeClock(() => 1000);
  const log: string[] = [];
  const seen: ReturnType<typeof scrape>[] = [];
  let rounds = 0;
  await runCanary({
    target: TARGET,
    everyMs: 60_000,
    runRound: () => run(() => runProbe(probeOf(rounds < 2 ? reference.url : corrupt.url))),
    metrics,
    log: (l) => log.push(l),
    stop: stop.signal,
    clock,
    onRound: () => {
      seen.push(scrape(metrics));
      if (++rounds === 4) stop.abort();
    },
  });
  assert.equal(scrape(new CanaryMetrics([TARGET])).clean, undefined, 'no verdict sample before the first round');
  assert.deepEqual(seen.map((s) => [s.clean, s.corrupt, s.inconclusive, s.error]), [
    [1, 0, 0, 0],
    [1, 0, 0, 0],
    [0, 1, 0, 0],
    [0, 1, 0, 0],
  ]);
  const last = seen[3].m;
  assert.equal(sampleValue(last, 'faultline_probe_verdict_changes_total', { target: TARGET }), 1);
  assert.equal(sampleValue(last, 'faultline_probe_rounds_total', { target: TARGET, verdict: 'clean' }), 2);
  assert.equal(sampleValue(last, 'faultline_probe_rounds_total', { target: TARGET, verdict: 'corrupt' }), 2);
  assert.ok(sampleValue(last, 'faultline_probe_requests_corrupt_total', { target: TARGET })! > 0);
  const ratio = sampleValue(last, 'faultline_probe_corrupt_request_ratio', { target: TARGET })!;
  assert.ok(ratio > 0 && ratio <= 1, `ratio ${ratio}`);
  assert.equal(sampleValue(last, 'faultline_probe_duration_seconds', { target: TARGET }), 1);
  assert.equal(log.length, 2, log.join('\n'));
  assert.match(log[0], /^faultline probe: \S+Z http:\/\/target\.invalid:8000: first verdict CLEAN \(round 1: 0 of \d+ judged requests corrupt, 0 failed; /);
  assert.match(log[1], /: verdict CLEAN → CORRUPT \(round 3: [1-9]\d* of \d+ judged requests corrupt, 0 failed; /);
  for (const line of log) assert.doesNotMatch(line, /\n/);
});

test('a round that throws is an ERROR round (counted, logged); the loop goes on and recovers', async () => {
  const metrics = new CanaryMetrics([TARGET]);
  const stop = new AbortController();
  const { clock, run } = fakeClock(() => 10);
  const log: string[] = [];
  const verdicts: string[] = [];
  let n = 0;
  await runCanary({
    target: TARGET,
    everyMs: 1000,
    runRound: () =>
      run(async () => {
        if (n++ === 1) throw new Error('the reference tokenizes differently');
        return runProbe(probeOf(reference.url));
      }),
    metrics,
    log: (l) => log.push(l),
    stop: stop.signal,
    clock,
    onRound: (round) => {
      verdicts.push(round.verdict);
      if (verdicts.length === 3) stop.abort();
    },
  });
  assert.deepEqual(verdicts, ['CLEAN', 'ERROR', 'CLEAN']);
  assert.deepEqual(log.map((l) => /(first verdict \w+|verdict \w+ → \w+)/.exec(l)?.[1]), [
    'first verdict CLEAN',
    'verdict CLEAN → ERROR',
    'verdict ERROR → CLEAN',
  ]);
  assert.match(log[1], /round 2: the reference tokenizes differently\)$/);
  const m = parseExposition(metrics.render());
  assert.equal(sampleValue(m, 'faultline_probe_errors_total', { target: TARGET, kind: 'round' }), 1);
  assert.equal(sampleValue(m, 'faultline_probe_verdict_changes_total', { target: TARGET }), 2);
});

test('rounds keep fixed slots; one that overruns skips the slots it missed instead of piling up', async () => {
  const metrics = new CanaryMetrics([TARGET]);
  const stop = new AbortController();
  const durations = [100, 2500, 100, 100];
  const { clock, run, starts } = fakeClock((i) => durations[i]);
  let rounds = 0;
  const fake = { verdict: 'CLEAN', reason: 'r', counts: { judged: 1, corrupt: 0, failed: 0 } } as ProbeReport;
  await runCanary({
    target: TARGET,
    everyMs: 1000,
    runRound: () => run(async () => fake),
    metrics,
    log: () => {},
    stop: stop.signal,
    clock,
    onRound: () => {
      if (++rounds === 4) stop.abort();
    },
  });
  const t0 = starts[0];
  assert.deepEqual(starts.map((s) => s - t0), [0, 1000, 4000, 5000]);
});

test('a single round (no --every) rethrows after recording the ERROR round, so the textfile shows it', async () => {
  const metrics = new CanaryMetrics([TARGET]);
  const recorded: Round[] = [];
  await assert.rejects(
    runCanary({
      target: TARGET,
      runRound: async () => {
        throw new Error('cannot reach the target');
      },
      metrics,
      log: () => {},
      stop: new AbortController().signal,
      onRound: (r) => recorded.push(r),
    }),
    /cannot reach the target/,
  );
  assert.deepEqual(recorded.map((r) => r.verdict), ['ERROR']);
  assert.equal(scrape(metrics).error, 1);
});

test('a round cut short by the stop is not recorded: no evidence either way', async () => {
  const metrics = new CanaryMetrics([TARGET]);
  const stop = new AbortController();
  const onRound: Round[] = [];
  const last = await runCanary({
    target: TARGET,
    everyMs: 1000,
    runRound: (signal) => {
      const p = runProbe({ ...probeOf(corrupt.url), signal });
      setTimeout(() => stop.abort(), 5);
      return p;
    },
    metrics,
    log: () => {},
    stop: stop.signal,
    onRound: (r) => onRound.push(r),
  });
  assert.equal(last, undefined);
  assert.deepEqual(onRound, []);
  assert.equal(sampleValue(parseExposition(metrics.render()), 'faultline_probe_rounds_total', { target: TARGET, verdict: 'corrupt' }), 0);
});

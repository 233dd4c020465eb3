/**
 * The probe against servers that send several tokens per streamed event (`engine serve
 * --stream-interval 4`) and the whole completion in one event (`--stream-interval 0`), with prefix
 * caching: the workload suite reads CLEAN on the benign servers and CORRUPT when the same server
 * has the stale prefix-cache fault; the window-crossing suite reads CLEAN on the benign servers and
 * CORRUPT on the same servers with the canonical window fault (it never streams, and single
 * requests never meet a stale prefix: test/slow/probe-workload.test.ts). The capability report of
 * the run says how the target streams.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkloadReport } from '../../src/probe/workload/report.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';
import { CANONICAL_CORRUPT } from '../helpers/canonical-launch.js';

const MODEL = ['--model', 'models/tiny-swa', '--max-model-len', '512'];
const KV = ['--enable-prefix-caching', '--num-gpu-blocks-override', '40', '--max-num-batched-tokens', '128'];
const STALE = ['--stateful-fault-model', 'stale-prefix-hash'];
const WINDOW_FAULT = CANONICAL_CORRUPT;

let reference: ServerProcess;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-stream-interval-'));
  reference = await startServer(MODEL, 60_000);
});
after(async () => {
  await reference?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function probe(
  flags: string[],
  args: string[],
): Promise<{ code: number | null; out: string; report: unknown }> {
  const target = await startServer([...MODEL, ...flags], 60_000);
  const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  try {
    const r = await runCli(
      [
        'probe',
        '--target',
        target.url,
        '--reference',
        reference.url,
        '--window',
        '128',
        '--max-tokens',
        '16',
        '--out',
        file,
        ...args,
      ],
      { timeoutMs: 280_000 },
    );
    return { code: r.code, out: r.stdout + r.stderr, report: JSON.parse(readFileSync(file, 'utf8')) };
  } finally {
    await target.stop();
  }
}

for (const [interval, stream] of [
  ['4', { tokens: 8, events: 2 }],
  ['0', { tokens: 8, events: 1 }],
] as const)
  describe(
    `--stream-interval ${interval} (${interval === '0' ? 'the whole completion in one event' : `${interval} tokens per event`})`,
    { timeout: 900_000 },
    () => {
      const chunked = [...KV, '--stream-interval', interval];

      test('workload: CLEAN on the benign server, nothing cut off, the capability report says how it streams', async () => {
        const r = await probe(chunked, ['--suite', 'workload', '--rounds', '4']);
        const w = r.report as WorkloadReport;
        assert.equal(r.code, 0, r.out);
        assert.equal(w.verdict, 'CLEAN');
        assert.equal(w.counts['cut-off'] + w.counts.failed, 0);
        assert.deepEqual(
          { tokens: w.capabilities.target.stream?.tokens, events: w.capabilities.target.stream?.events },
          stream,
        );
        assert.match(r.out, /streaming: yes — /);
        assert.match(w.notes.join('\n'), /streams several tokens per event/);
      });

      test('workload: CORRUPT on the same server with the stale prefix-cache fault, after an eviction', async () => {
        const r = await probe([...chunked, ...STALE], ['--suite', 'workload', '--rounds', '6']);
        const w = r.report as WorkloadReport;
        assert.equal(r.code, 1, r.out);
        assert.equal(w.verdict, 'CORRUPT');
        assert.ok(
          w.requests.some((q) => q.outcome === 'corrupt' && q.features.includes('after-eviction')),
          r.out,
        );
      });

      test('window-crossing: CLEAN on the benign server, CORRUPT on the same server with the canonical window fault', async () => {
        const clean = await probe(chunked, ['--suite', 'window-crossing', '--requests', '30']);
        assert.equal(clean.code, 0, clean.out);
        const corrupt = await probe(
          [...chunked, ...WINDOW_FAULT],
          ['--suite', 'window-crossing', '--requests', '16', '--max-tokens', '64'],
        );
        assert.equal(corrupt.code, 1, corrupt.out);
        assert.equal((corrupt.report as { verdict: string }).verdict, 'CORRUPT');
      });
    },
  );

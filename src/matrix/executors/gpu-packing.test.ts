import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { MatrixProbe } from '../cell-probe.js';
import type { Executor, LaunchRequest, LaunchResult } from '../executor.js';
import { createLocalExecutor } from '../local-executor.js';
import { parsePlan } from '../plan-load.js';
import { runMatrix } from '../run.js';
import { withGpuPacking } from './gpu-packing.js';
import { GpuPool } from './gpu-pool.js';

const standIn = fileURLToPath(new URL('../../../test/fixtures/matrix/stand-in-server.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const never = new AbortController().signal;

/** An inner executor that checks, at every launch, that its GPUs are not those of a server still running. */
function recordingExecutor(slots: number, failEvery = 0) {
  const live = new Map<number, string[]>();
  let next = 0;
  let launches = 0;
  const inner: Executor = {
    slots,
    async launch(request: LaunchRequest): Promise<LaunchResult> {
      launches++;
      const ids = (request.gpus ?? '').split(',');
      assert.equal(ids.length, request.gpuCount ?? 1, 'as many GPUs as the cell needs');
      for (const [, other] of live)
        for (const id of ids) assert.ok(!other.includes(id), `GPU ${id} given to two cells at once`);
      if (failEvery && launches % failEvery === 0)
        return { ok: false, outcome: 'launch-failed', detail: 'fake: exited at start' };
      const n = next++;
      live.set(n, ids);
      await sleep(0);
      return { ok: true, server: { baseUrl: `fake://${n}`, stop: async () => void live.delete(n) } };
    },
  };
  return { inner, live };
}

test('property: packed cells of any sizes and durations never share a GPU, and all GPUs come back', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.record({ gpus: fc.integer({ min: 1, max: 8 }), holdMs: fc.integer({ min: 0, max: 4 }) }), {
        minLength: 1,
        maxLength: 24,
      }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 0, max: 4 }),
      async (capacity, cells, slots, failEvery) => {
        const ids = Array.from({ length: capacity }, (_, i) => String(i));
        const pool = new GpuPool(ids);
        const { inner, live } = recordingExecutor(slots, failEvery);
        const packed = withGpuPacking(inner, pool);
        // at most `slots` cells at once, as the run's CellRunner does
        let cursor = 0;
        const outcomes: string[] = [];
        const worker = async (): Promise<void> => {
          while (cursor < cells.length) {
            const cell = cells[cursor++];
            const r = await packed.launch(
              {
                cellId: `c${cursor}`,
                config: [],
                levels: {},
                argv: [],
                env: {},
                slot: 0,
                gpuCount: cell.gpus,
              },
              never,
            );
            outcomes.push(r.ok ? 'ok' : r.outcome);
            if (!r.ok) continue;
            await sleep(cell.holdMs);
            await r.server.stop();
          }
        };
        await Promise.all(Array.from({ length: slots }, worker));
        assert.equal(live.size, 0);
        assert.deepEqual(pool.free, ids, 'every GPU is back in the pool');
        // a cell larger than the node is a launch failure that says so, never a wait forever
        assert.equal(outcomes.length, cells.length);
        if (cells.some((c) => c.gpus > capacity)) assert.ok(outcomes.includes('launch-failed'));
      },
    ),
    { numRuns: 150 },
  );
});

test('a run on a node of four GPU ids: cells of 1, 2 and 4 GPUs get disjoint CUDA_VISIBLE_DEVICES, the kept-alive reference its own', async (t) => {
  const runDir = mkdtempSync(join(tmpdir(), 'fl-gpu-pack-'));
  t.after(() => rmSync(runDir, { recursive: true, force: true }));
  const planFile = join(runDir, 'plan.yaml');
  writeFileSync(
    planFile,
    `launch:
  argv: [${JSON.stringify(process.execPath)}, ${JSON.stringify(standIn)}, --port, "{port}"]
  ready_timeout_s: 20
  stop_timeout_s: 2
reference: { keep_alive: true }
executor: { gpus: [g0, g1, g2, g3, g4], parallel: 3 }
factors:
  tp:
    levels:
      "1": {}
      "2": { argv: [--tp, "2"], gpus: 2 }
      "4": { argv: [--tp, "4"], gpus: 4 }
  kv:
    levels: { bf16: {}, fp8: { argv: [--fp8] } }
strength: 2
confirm: 0
`,
  );
  const plan = parsePlan(planFile, readFileSync(planFile, 'utf8'));
  const local = createLocalExecutor({
    runDir,
    slots: plan.executor.parallel,
    health: '/health',
    readyTimeoutMs: 20_000,
    stopTimeoutMs: 2000,
  });
  const executor = withGpuPacking(local, new GpuPool(['g0', 'g1', 'g2', 'g3', 'g4']));
  // each cell holds its server a little, so cells overlap and must share the node
  const probe: MatrixProbe = {
    captureReference: async () => ({}),
    probeCell: async () => {
      await sleep(150);
      return { outcome: 'pass', corruptRate: 0, requests: 1 };
    },
  };
  const run = await runMatrix({ plan, executor, probe, shrinkSteps: 50 });
  // each server's own lifetime and devices, from its log (a cell's span also covers its wait for GPUs)
  const log = (cell: string): string => readFileSync(join(runDir, 'cells', cell, 'stdout.log'), 'utf8');
  const devices = (cell: string): string[] => /CUDA_VISIBLE_DEVICES=(\S*)/.exec(log(cell))![1].split(',');
  const spans = run.cells.map((c) => ({
    id: c.id,
    tp: Number(c.levels.tp),
    gpus: devices(c.id),
    from: Number(/started-at=(\d+)/.exec(log(c.id))![1]),
    to: Number(/stopped-at=(\d+)/.exec(log(c.id))![1]),
  }));
  assert.ok(spans.some((s) => s.tp === 4) && spans.some((s) => s.tp === 2) && spans.some((s) => s.tp === 1));
  for (const s of spans) assert.equal(s.gpus.length, s.tp, `${s.id}: tp ${s.tp} gets ${s.tp} GPUs`);
  const reference = devices('reference');
  assert.equal(reference.length, 1);
  let overlapped = 0;
  for (const s of spans) {
    assert.ok(
      !s.gpus.includes(reference[0]),
      `${s.id} shares GPU ${reference[0]} with the kept-alive reference`,
    );
    for (const o of spans)
      if (o.id < s.id && o.from < s.to && s.from < o.to) {
        overlapped++;
        assert.deepEqual(
          s.gpus.filter((g) => o.gpus.includes(g)),
          [],
          `${s.id} and ${o.id} ran at once on one GPU`,
        );
      }
  }
  assert.ok(overlapped > 0, 'some cells ran side by side');
});

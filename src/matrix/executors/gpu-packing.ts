/**
 * GPU packing for servers on one node: wraps an executor (the local one) so that each cell runs
 * with CUDA_VISIBLE_DEVICES set to GPUs no other running cell holds, as many as the cell needs
 * (LaunchRequest.gpuCount). The GPUs go back to the pool once the server is stopped, or at once
 * when its launch fails. A request that names its GPUs itself (reference.gpus) passes through.
 */
import type { Executor, LaunchRequest, LaunchResult, ServerHandle } from '../executor.js';
import { GpuPool } from './gpu-pool.js';

/** The cell id the run gives its reference launch: a kept-alive one holds its GPUs for the whole run. */
const REFERENCE_CELL = 'reference';

export function withGpuPacking(inner: Executor, pool: GpuPool): Executor {
  let heldByReference = 0;
  return {
    slots: inner.slots,
    idleServersBlock: true,
    ...(inner.close ? { close: () => inner.close!() } : {}),
    async launch(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult> {
      if (request.gpus !== undefined) return inner.launch(request, signal);
      const count = request.gpuCount ?? 1;
      const usable = pool.capacity - heldByReference;
      if (count > usable)
        return {
          ok: false,
          outcome: 'launch-failed',
          detail: `the cell needs ${count} GPUs; the executor has ${pool.capacity}${heldByReference ? `, ${heldByReference} of them held by the kept-alive reference` : ''} (executor.gpus: ${pool.ids.join(',')})`,
        };
      let ids: string[];
      try {
        ids = await pool.acquire(count, signal);
      } catch {
        return {
          ok: false,
          outcome: 'launch-failed',
          detail: `interrupted while waiting for ${count} GPU(s)`,
        };
      }
      const isReference = request.cellId === REFERENCE_CELL;
      if (isReference) heldByReference += ids.length;
      let released = false;
      const giveBack = (): void => {
        if (released) return;
        released = true;
        if (isReference) heldByReference -= ids.length;
        pool.release(ids);
      };
      let result: LaunchResult;
      try {
        result = await inner.launch({ ...request, gpus: ids.join(',') }, signal);
      } catch (e) {
        giveBack();
        throw e;
      }
      if (!result.ok) {
        giveBack();
        return result;
      }
      const server = result.server;
      const handle: ServerHandle = {
        baseUrl: server.baseUrl,
        stop: async () => {
          try {
            await server.stop();
          } finally {
            giveBack();
          }
        },
        ...(server.fate ? { fate: () => server.fate!() } : {}),
      };
      return { ok: true, server: handle };
    },
  };
}

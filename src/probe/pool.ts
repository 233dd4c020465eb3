/**
 * Runs tasks with bounded concurrency and hands their results to `commit` strictly in index order,
 * so every decision that depends on order (the sequential test, the running margin calibration)
 * is the same at any concurrency. `commit` returns false to stop: no new task starts, and the
 * signal given to running tasks is aborted. Aborting `stop` does the same from outside.
 */
import { setMaxListeners } from 'node:events';

/**
 * Every in-flight HTTP call listens on the one shared signal (each prompt makes several calls on two
 * servers), so at --concurrency 4 more than Node's default 10 listeners are attached at once, each
 * removed when its call ends: a legitimate count, not a leak.
 */
const LISTENERS_PER_SIGNAL = 256;

export async function runOrdered<T>(
  count: number,
  concurrency: number,
  task: (index: number, signal: AbortSignal) => Promise<T>,
  commit: (index: number, result: T) => boolean,
  stop?: AbortSignal,
): Promise<{ committed: number }> {
  const controller = new AbortController();
  setMaxListeners(LISTENERS_PER_SIGNAL, controller.signal);
  const results = new Map<number, T>();
  let next = 0;
  let committed = 0;
  let stopped = false;
  const drain = () => {
    while (!stopped && results.has(committed)) {
      const r = results.get(committed)!;
      results.delete(committed);
      const goOn = commit(committed, r);
      committed++;
      if (!goOn) {
        stopped = true;
        controller.abort();
      }
    }
  };
  const worker = async () => {
    while (!stopped && next < count) {
      const i = next++;
      const r = await task(i, controller.signal);
      results.set(i, r);
      drain();
    }
  };
  // an outside stop (Ctrl-C of a long-running canary) ends the run as a `false` commit would
  const onStop = () => {
    stopped = true;
    controller.abort();
  };
  if (stop?.aborted) onStop();
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  } finally {
    stop?.removeEventListener('abort', onStop);
  }
  return { committed };
}

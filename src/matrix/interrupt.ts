/**
 * Ctrl-C during a matrix run. The first SIGINT (or SIGTERM) aborts the run: cells in flight
 * stop their servers and are not journaled, finished cells are, and `--resume` continues from
 * there. A second signal does not wait: every server group gets SIGKILL and faultline exits.
 * (Only a SIGKILL of faultline itself leaves servers behind; nothing can run then.)
 */
import { killAllGroupsNow } from './process-groups.js';

export function handleInterrupts(controller: AbortController, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  let received = 0;
  const handler = (signal: NodeJS.Signals): void => {
    received++;
    if (received === 1) {
      controller.abort();
      return;
    }
    killAllGroupsNow();
    exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

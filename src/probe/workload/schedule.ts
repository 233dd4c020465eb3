/**
 * Runs one round of a trace on the target: every request starts once its conditions hold (another
 * finished, streamed k tokens, was cancelled) plus its seeded jitter, so the requests overlap as the
 * trace says on a fast or a slow server. A request whose condition can never hold (the request it
 * waits for failed) is cut off, never judged.
 */
import type { CallResult } from '../client.js';
import type { ServerApi } from '../server-api.js';
import { exchange, streamThenCancel, type Exchanged } from './exchange.js';
import type { StartCondition, TraceRequest } from './trace.js';

export type RoundOutcome =
  | { kind: 'judged'; result: CallResult<Exchanged> }
  | { kind: 'cancelled'; tokens: number; cancelled: boolean }
  | { kind: 'failed'; error: string }
  | { kind: 'cut-off'; reason: string };

class Tracker {
  tokens = 0;
  private waiters: { test: () => boolean; resolve: (ok: boolean) => void }[] = [];
  state: 'waiting' | 'running' | 'done' | 'cancelled' | 'failed' = 'waiting';

  update(change: () => void): void {
    change();
    this.waiters = this.waiters.filter((w) => {
      if (w.test()) w.resolve(true);
      else if (this.state === 'failed' || this.state === 'done' || this.state === 'cancelled') w.resolve(false);
      else return true;
      return false;
    });
  }

  /** Resolves true when the condition holds, false when it no longer can. */
  when(c: StartCondition): Promise<boolean> {
    const test = () =>
      c.event === 'done'
        ? this.state === 'done'
        : c.event === 'cancelled'
          ? this.state === 'cancelled'
          : this.tokens >= (c.tokens ?? 1);
    if (test()) return Promise.resolve(true);
    if (this.state === 'failed' || this.state === 'done' || this.state === 'cancelled') return Promise.resolve(false);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }
}

export async function runRound(
  target: ServerApi,
  round: readonly TraceRequest[],
  logprobs: number,
  seed: number,
  signal?: AbortSignal,
): Promise<Map<string, RoundOutcome>> {
  const trackers = new Map(round.map((r) => [r.id, new Tracker()]));
  const outcomes = new Map<string, RoundOutcome>();
  const one = async (r: TraceRequest): Promise<void> => {
    const me = trackers.get(r.id)!;
    for (const c of r.start) {
      const other = trackers.get(c.after);
      if (!other || !(await other.when(c))) {
        outcomes.set(r.id, { kind: 'cut-off', reason: `${c.after} never reached "${c.event}"` });
        me.update(() => (me.state = 'failed'));
        return;
      }
    }
    if (r.delayMs > 0) await new Promise((res) => setTimeout(res, r.delayMs));
    if (signal?.aborted) {
      outcomes.set(r.id, { kind: 'cut-off', reason: 'the probe was stopped' });
      me.update(() => (me.state = 'failed'));
      return;
    }
    me.update(() => (me.state = 'running'));
    if (r.cancelAfterTokens !== undefined) {
      const s = await streamThenCancel(target.client, target.model, r, { onTokens: (n) => me.update(() => (me.tokens = n)) }, signal);
      if (s.ok) outcomes.set(r.id, { kind: 'cancelled', ...s.value });
      else outcomes.set(r.id, { kind: 'failed', error: s.error });
      me.update(() => (me.state = s.ok ? 'cancelled' : 'failed'));
      return;
    }
    const result = await exchange(target, r, logprobs, seed, signal);
    outcomes.set(r.id, result.ok ? { kind: 'judged', result } : { kind: 'failed', error: result.error });
    me.update(() => (me.state = result.ok ? 'done' : 'failed'));
  };
  await Promise.all(round.map(one));
  return outcomes;
}

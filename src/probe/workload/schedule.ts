/**
 * Runs one round of a trace on the target: every request starts once its conditions hold (another
 * finished, streamed k tokens, was cancelled) plus its seeded jitter, so the requests overlap as the
 * trace says on a fast or a slow server. Conditions count tokens, never events. A request whose
 * condition can no longer hold because the request it waits on ended well without the event (it
 * finished before streaming k tokens, or before it could be cancelled) starts anyway, with the
 * reason recorded; one that waits on a failed request is cut off, never judged.
 */
import type { CallResult } from '../client.js';
import type { ServerApi } from '../server-api.js';
import { exchange, streamThenCancel, type Exchanged, type StreamedThenCancelled } from './exchange.js';
import type { StartCondition, TraceRequest } from './trace.js';

export type RoundOutcome =
  | { kind: 'judged'; result: CallResult<Exchanged>; released?: string }
  | ({ kind: 'cancelled'; released?: string } & StreamedThenCancelled)
  | { kind: 'failed'; error: string }
  | { kind: 'cut-off'; reason: string };

type State = 'waiting' | 'running' | 'done' | 'cancelled' | 'failed';
const ENDED: readonly State[] = ['done', 'cancelled', 'failed'];

/** A start condition's answer: it held, it was released (the reason why), or it never can. */
export type Wait = { held: true; released?: string } | { held: false };

/** One request's progress, and the start conditions of others that wait on it. */
export class StartTracker {
  tokens = 0;
  state: State = 'waiting';
  private waiters: { c: StartCondition; resolve: (w: Wait) => void }[] = [];

  constructor(readonly id: string) {}

  update(change: () => void): void {
    change();
    this.waiters = this.waiters.filter((w) => {
      const answer = this.answer(w.c);
      if (answer) w.resolve(answer);
      return !answer;
    });
  }

  /**
   * A request that ended well without the event waited on (it finished before streaming k tokens,
   * or before the trace could cancel it) releases its waiters with the reason; one that failed
   * cuts them off.
   */
  private answer(c: StartCondition): Wait | undefined {
    const holds = c.event === 'done' ? this.state === 'done' : c.event === 'cancelled' ? this.state === 'cancelled' : this.tokens >= (c.tokens ?? 1);
    if (holds) return { held: true };
    if (!ENDED.includes(this.state)) return undefined;
    if (this.state === 'failed') return { held: false };
    const ended = this.state === 'done' ? `finished after ${this.tokens} token(s)` : `was cancelled after ${this.tokens} token(s)`;
    if (c.event === 'tokens') return { held: true, released: `${this.id} ${ended}, before streaming ${c.tokens ?? 1}` };
    if (c.event === 'cancelled') return { held: true, released: `${this.id} ${ended}: the server finished it before the cancel could land` };
    return { held: false };
  }

  when(c: StartCondition): Promise<Wait> {
    const now = this.answer(c);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => this.waiters.push({ c, resolve }));
  }
}

export async function runRound(
  target: ServerApi,
  round: readonly TraceRequest[],
  logprobs: number,
  seed: number,
  signal?: AbortSignal,
): Promise<Map<string, RoundOutcome>> {
  const trackers = new Map(round.map((r) => [r.id, new StartTracker(r.id)]));
  const outcomes = new Map<string, RoundOutcome>();
  const one = async (r: TraceRequest): Promise<void> => {
    const me = trackers.get(r.id)!;
    const released: string[] = [];
    for (const c of r.start) {
      const other = trackers.get(c.after);
      const w = other ? await other.when(c) : ({ held: false } as const);
      if (!w.held) {
        outcomes.set(r.id, { kind: 'cut-off', reason: `${c.after} never reached "${c.event}"` });
        me.update(() => (me.state = 'failed'));
        return;
      }
      if (w.released) released.push(w.released);
    }
    const why = released.length ? { released: released.join('; ') } : {};
    if (r.delayMs > 0) await new Promise((res) => setTimeout(res, r.delayMs));
    if (signal?.aborted) {
      outcomes.set(r.id, { kind: 'cut-off', reason: 'the probe was stopped' });
      me.update(() => (me.state = 'failed'));
      return;
    }
    me.update(() => (me.state = 'running'));
    if (r.cancelAfterTokens !== undefined) {
      const s = await streamThenCancel(target, r, { onTokens: (n) => me.update(() => (me.tokens = n)) }, signal);
      if (s.ok) outcomes.set(r.id, { kind: 'cancelled', ...s.value, ...why });
      else outcomes.set(r.id, { kind: 'failed', error: s.error });
      me.update(() => (me.state = !s.ok ? 'failed' : s.value.cancelled ? 'cancelled' : 'done'));
      return;
    }
    const result = await exchange(target, r, logprobs, seed, signal);
    outcomes.set(r.id, result.ok ? { kind: 'judged', result, ...why } : { kind: 'failed', error: result.error });
    me.update(() => {
      if (result.ok) me.tokens = result.value.generation.tokens.length;
      me.state = result.ok ? 'done' : 'failed';
    });
  };
  await Promise.all(round.map(one));
  return outcomes;
}

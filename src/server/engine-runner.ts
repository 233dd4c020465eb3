/**
 * The async driver of the synchronous scheduler: requests come in from HTTP handlers at any time;
 * one loop runs scheduler steps back to back while there is work, yielding to the event loop
 * between steps (so sockets, new requests and aborts are served), and sleeps when idle.
 * Each submitted request gets a GenerationStream: an async iterable of its events, and abort().
 */
import type { Scheduler } from '../engine/scheduler.js';
import type { EmittedToken, Finish, PromptLogprob, SequenceRequest } from '../engine/sequence.js';

export type GenerationEvent =
  | { kind: 'prompt_logprobs'; entries: PromptLogprob[] }
  /** `finish` is set when the sequence finished in the step that emitted these tokens (one chunk, as vLLM streams it). */
  | { kind: 'tokens'; tokens: EmittedToken[]; finish?: Finish }
  | { kind: 'finish'; finish: Finish };

export interface GenerationStream extends AsyncIterable<GenerationEvent> {
  /** Stops the sequence at the next step (see SequenceHandle.abort). */
  abort(finish?: Finish): void;
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class EngineRunner {
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(readonly scheduler: Scheduler) {}

  get busy(): boolean {
    return this.scheduler.hasWork;
  }

  submit(request: SequenceRequest): GenerationStream {
    if (this.closed) throw new Error('the engine is shutting down');
    const queue: GenerationEvent[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    const push = (e: GenerationEvent) => {
      queue.push(e);
      if (e.kind === 'finish') done = true;
      wake?.();
      wake = null;
    };
    const handle = this.scheduler.submit(request, {
      onPromptLogprobs: (entries) => push({ kind: 'prompt_logprobs', entries }),
      onTokens: (tokens) => push({ kind: 'tokens', tokens }),
      onFinish: (finish) => push({ kind: 'finish', finish }),
    });
    this.kick();
    return {
      abort: (finish?: Finish) => {
        if (done) return;
        handle.abort(finish);
        this.kick();
      },
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (queue.length) {
            const e = queue.shift()!;
            const next = queue[0];
            if (e.kind === 'tokens' && next?.kind === 'finish') {
              queue.shift();
              yield { ...e, finish: next.finish };
              return;
            }
            yield e;
            if (e.kind === 'finish') return;
          }
          if (done) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    };
  }

  /** Resolves when no request is waiting or running. */
  whenIdle(): Promise<void> {
    if (!this.scheduler.hasWork) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking requests; waits up to `timeoutMs` for in-flight ones, then aborts the rest and ends the engine's worker thread. */
  async shutdown(timeoutMs: number): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([this.whenIdle(), timeout]);
    clearTimeout(timer);
    if (this.scheduler.hasWork) {
      this.scheduler.abortAll();
      await this.whenIdle();
    }
    await this.scheduler.engine.close();
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      while (this.scheduler.hasWork) {
        this.scheduler.step();
        await nextTick();
      }
    } catch (e) {
      // a bug in the engine: end every request with an error instead of hanging them
      const message = e instanceof Error ? e.message : String(e);
      process.stderr.write(`engine: step failed: ${message}\n`);
      this.scheduler.failAll(message);
    } finally {
      this.running = false;
      if (!this.scheduler.hasWork) for (const w of this.idleWaiters.splice(0)) w();
      else this.kick();
    }
  }
}

/**
 * The async driver of the synchronous scheduler: requests come in from HTTP handlers at any time;
 * one loop runs scheduler steps back to back while there is work, yielding to the event loop
 * between steps (so sockets, new requests and aborts are served), and sleeps when idle.
 * Each submitted request gets a GenerationStream: an async iterable of its events, and abort().
 */
import type { Scheduler } from '../engine/scheduler.js';
import type { Finish, SequenceRequest } from '../engine/sequence.js';
import { eventStream, type GenerationStream, type Refusal, type Runner, type RunnerMetrics } from './runner.js';

export type { GenerationEvent, GenerationStream } from './runner.js';

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class EngineRunner implements Runner {
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(readonly scheduler: Scheduler) {}

  get busy(): boolean {
    return this.scheduler.hasWork;
  }

  submit(request: SequenceRequest): GenerationStream {
    if (this.closed) throw new Error('the engine is shutting down');
    let handle: { abort(finish?: Finish): void } | null = null;
    const { stream, push } = eventStream((finish) => {
      handle?.abort(finish);
      this.kick();
    });
    handle = this.scheduler.submit(request, {
      onPromptLogprobs: (entries) => push({ kind: 'prompt_logprobs', entries }),
      onTokens: (tokens) => push({ kind: 'tokens', tokens }),
      onFinish: (finish) => push({ kind: 'finish', finish }),
    });
    this.kick();
    return stream;
  }

  /** The engine implements every field the routes accept. */
  refusal(): Refusal | null {
    return null;
  }

  metrics(): RunnerMetrics {
    const s = this.scheduler;
    const c = s.counters;
    const kv = s.engine.kvBlocks;
    return {
      running: s.numRunning,
      waiting: s.numWaiting,
      finished: { ...c.finished },
      promptTokens: c.promptTokens,
      generationTokens: c.generationTokens,
      spec: { drafts: c.specDrafts, draftTokens: c.specDraftTokens, acceptedTokens: c.specAcceptedTokens },
      preemptions: c.preemptions,
      kv: kv ? { pageSize: kv.pageSize, numBlocks: kv.numBlocks, prefixCaching: kv.prefixCaching, usage: kv.usage, queries: kv.stats.queries, hits: kv.stats.hits } : undefined,
      extra: [{ name: 'faultline:engine_steps_total', type: 'counter', help: 'Engine steps (one batched forward each).', value: c.steps }],
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

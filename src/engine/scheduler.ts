/**
 * Continuous batching on top of the engine step API. Each `step()` runs ONE engine forward over the
 * running sequences: new sequences prefill their prompt, running ones feed their last token (plain
 * decode, one row) or their last token plus drafts (verification, 1 + k' rows). All rows go through
 * the model's matmuls together; the engine splits the step into a decode slice (requests with the
 * same q_len ≤ 1 + k) and a prefill slice, as vLLM's FlashInfer backend does — so a request's
 * attention path can depend on what else is in the batch, exactly as in serving.
 *
 * Token budget (vLLM's max_num_batched_tokens, default unlimited): a step takes at most that many
 * rows. As in vLLM's scheduler, running sequences come first (in arrival order; drafts are cut to
 * what fits), then waiting ones are admitted. With chunked prefill (the default, as in vLLM) a prompt
 * that does not fit is fed in chunks over several steps — so one long prompt no longer stalls every
 * stream's next token for a whole prefill; without it a prompt waits until it fits whole. A chunk
 * of at most 1 + k tokens is classified like a decode by the engine, as vLLM classifies by query length.
 *
 * Sequences join and leave between steps (finished, aborted); waiting requests are admitted in
 * arrival order up to `maxNumSeqs`. The scheduler is synchronous: an async driver (the server)
 * calls step() in a loop and yields to the event loop between steps.
 *
 * KV blocks (when the engine has a block budget, `StepEngine.kvBlocks`), as vLLM's scheduler does:
 * a newly admitted sequence starts from the cached blocks of its prefix (prefix caching); every
 * sequence's slots for the step are allocated before the step runs; when they do not fit, the
 * most recently admitted running sequence is preempted by recompute (its blocks released, it goes
 * back to the front of the queue and later prefills prompt + output again), until they fit or the
 * sequence itself is the one preempted. A waiting sequence whose slots do not fit is not admitted
 * (nobody is preempted for it), and a step that preempted admits nobody. An aborted sequence's
 * blocks are released with `aborted` set (stateful fault models may treat it apart).
 */
import type { StepEngine } from './step-engine.js';
import { Sequence, type Finish, type SequenceRequest, type SequenceSink } from './sequence.js';
import type { SpecConfig } from './speculative/config.js';
import type { StateFaults } from './state-faults.js';

export interface SchedulerOptions {
  spec: SpecConfig | null;
  /** Most sequences in one step (vLLM's --max-num-seqs). */
  maxNumSeqs: number;
  maxModelLen: number;
  /** Most rows (tokens) in one step (vLLM's --max-num-batched-tokens); default: no limit. */
  maxNumBatchedTokens?: number;
  /** Feed a prompt that does not fit the step's budget in chunks (default true, as in vLLM). */
  chunkedPrefill?: boolean;
  /** Stateful fault models of the sequences' own bookkeeping (prompt logprobs; state-faults.ts); none by default. */
  stateFaults?: StateFaults;
}

/** Counters since start (the server's /metrics reads them). */
export interface SchedulerCounters {
  steps: number;
  promptTokens: number;
  generationTokens: number;
  finished: Record<Finish['reason'], number>;
  specDrafts: number;
  specDraftTokens: number;
  specAcceptedTokens: number;
  /** Sequences preempted (their cache dropped, to be recomputed): vLLM's num_preemptions. */
  preemptions: number;
}

export interface SequenceHandle {
  readonly id: number;
  /**
   * Stops generation at the next step boundary; the sink gets `finish` (default: reason "abort";
   * the server passes reason "stop" when a stop string ended the text). No-op once finished.
   */
  abort(finish?: Finish): void;
}

export class Scheduler {
  private readonly waiting: Sequence[] = [];
  private readonly running: Sequence[] = [];
  private nextId = 1;
  readonly counters: SchedulerCounters = {
    steps: 0,
    promptTokens: 0,
    generationTokens: 0,
    finished: { length: 0, stop: 0, abort: 0, error: 0 },
    specDrafts: 0,
    specDraftTokens: 0,
    specAcceptedTokens: 0,
    preemptions: 0,
  };

  constructor(
    readonly engine: StepEngine,
    readonly options: SchedulerOptions,
  ) {
    const k = options.spec?.numSpeculativeTokens ?? 0;
    if (engine.numSpeculativeTokens !== k) throw new RangeError(`the engine was built for ${engine.numSpeculativeTokens} speculative tokens, the scheduler for ${k}`);
    const budget = options.maxNumBatchedTokens;
    if (budget !== undefined && !(Number.isInteger(budget) && budget >= 1)) throw new RangeError(`maxNumBatchedTokens must be a whole number ≥ 1, got ${budget}`);
    if (budget !== undefined && options.chunkedPrefill === false && budget < options.maxModelLen)
      throw new RangeError(`without chunked prefill, maxNumBatchedTokens (${budget}) must be at least maxModelLen (${options.maxModelLen}): a longest prompt must fit one step`);
  }

  private get budget(): number {
    return this.options.maxNumBatchedTokens ?? Infinity;
  }

  /**
   * Begins the next step: its sequences (in running order) and their tokens, within the token budget —
   * running sequences that decode first, then those still prefilling, then waiting ones admitted —
   * with their KV slots allocated (preempting when they do not fit).
   */
  private beginStep(): { seqs: Sequence[]; tokens: number[][] } {
    let left = this.budget;
    let preempted = false;
    const chosen = new Map<Sequence, number[]>();
    const unchoose = (v: Sequence) => {
      left += chosen.get(v)?.length ?? 0;
      chosen.delete(v);
    };
    for (const decoding of [true, false])
      for (const s of [...this.running]) {
        if (s.prefilled !== decoding || left <= 0 || !this.running.includes(s)) continue;
        const t = this.stepTokens(s, left);
        while (!this.reserve(s, t)) {
          const victim = this.running[this.running.length - 1];
          unchoose(victim);
          this.preempt(victim);
          preempted = true;
          if (victim === s) break;
        }
        if (this.running.includes(s)) {
          chosen.set(s, t);
          left -= t.length;
        }
      }
    while (!preempted && this.waiting.length && this.running.length < this.options.maxNumSeqs && left > 0) {
      const s = this.waiting[0];
      if (this.options.chunkedPrefill === false && s.prefillLeft > left) break; // the prompt waits until it fits whole
      this.admit(s);
      const t = this.stepTokens(s, left);
      if (!this.reserve(s, t)) {
        this.engine.release(s.id); // its prefix-cache references; it waits for blocks to free up
        if (!this.running.length) s.finished = { reason: 'error', error: `KV cache is full: its ${this.engine.kvBlocks?.numBlocks} blocks cannot hold this request's next ${t.length} tokens even alone` };
        break;
      }
      this.running.push(this.waiting.shift()!);
      chosen.set(s, t);
      left -= t.length;
    }
    const seqs = this.running.filter((s) => chosen.has(s));
    return { seqs, tokens: seqs.map((s) => chosen.get(s)!) };
  }

  private stepTokens(s: Sequence, left: number): number[] {
    s.beginStep(this.engine.length(s.id));
    return s.nextStep(this.engine, left);
  }

  /** A sequence about to be admitted starts from its cached prefix (none when it scores its prompt, as in vLLM). */
  private admit(s: Sequence): void {
    const kv = this.engine.kvBlocks;
    s.startPrefill(kv?.prefixCaching && !s.scoresPrompt ? kv.attachPrefix(s.id, s.prefillTokens) : 0);
  }

  /** Allocates the step's KV slots for `tokens` (the drafts among them not final); false when they do not fit. */
  private reserve(s: Sequence, tokens: readonly number[]): boolean {
    const kv = this.engine.kvBlocks;
    return !kv || kv.allocateSlots(s.id, tokens, tokens.length - s.numDrafts);
  }

  /** Preemption by recompute: the sequence's blocks are released and it waits at the front of the queue. */
  private preempt(s: Sequence): void {
    this.running.splice(this.running.indexOf(s), 1);
    this.engine.release(s.id);
    s.preempt();
    this.waiting.unshift(s);
    this.counters.preemptions++;
  }

  /** Queues a request; its results go to `sink`. Validation of lengths is the caller's job (the server answers 400). */
  submit(request: SequenceRequest, sink: SequenceSink): SequenceHandle {
    if (request.promptIds.length === 0) throw new RangeError('empty prompt');
    if (request.maxTokens < 1) throw new RangeError('maxTokens must be ≥ 1');
    const seq = new Sequence(this.nextId++, request, sink, this.engine.model, this.options.spec, this.options.maxModelLen, this.options.stateFaults);
    this.waiting.push(seq);
    return {
      id: seq.id,
      abort: (finish) => {
        seq.abortRequested = true;
        seq.abortFinish ??= finish ?? null;
      },
    };
  }

  get numRunning(): number {
    return this.running.length;
  }

  get numWaiting(): number {
    return this.waiting.length;
  }

  get hasWork(): boolean {
    return this.running.length > 0 || this.waiting.length > 0;
  }

  /** Aborts every waiting and running sequence (shutdown). */
  abortAll(): void {
    for (const s of [...this.waiting, ...this.running]) s.abortRequested = true;
    this.reap();
  }

  /** Ends every sequence with an error (an unexpected failure outside the engine step). */
  failAll(message: string): void {
    for (const s of [...this.waiting, ...this.running]) s.finished ??= { reason: 'error', error: message };
    this.reap();
  }

  /** One engine step over every running sequence. Returns false when there was nothing to do. */
  step(): boolean {
    this.reap();
    const { seqs, tokens } = this.beginStep();
    if (!seqs.length) {
      const failed = this.waiting.some((s) => s.finished); // a request the cache cannot hold even alone
      this.reap();
      return failed;
    }
    const batch = seqs.map((s, i) => ({ seqId: s.id, tokens: tokens[i] }));
    let results;
    try {
      results = this.engine.forward(batch);
    } catch (e) {
      // the engine left every sequence as it was; these requests cannot continue, and the blocks
      // registered for this step were never written, so no prefix may hit them
      this.engine.kvBlocks?.resetPrefixCache();
      const message = e instanceof Error ? e.message : String(e);
      for (const s of this.running) s.finished = { reason: 'error', error: message };
      this.reap();
      return true;
    }
    this.counters.steps++;
    results.forEach((r, i) => {
      const s = seqs[i];
      const wasPrefill = !s.prefilled;
      const before = s.output.length;
      const spec = { ...s.spec };
      const keep = s.finishStep(r.logits, r.hidden, r.rows);
      if (this.engine.length(s.id) > keep) this.engine.rollback(s.id, keep);
      if (wasPrefill) this.counters.promptTokens += r.rows;
      this.counters.generationTokens += s.output.length - before;
      this.counters.specDrafts += s.spec.drafts - spec.drafts;
      this.counters.specDraftTokens += s.spec.draftTokens - spec.draftTokens;
      this.counters.specAcceptedTokens += s.spec.acceptedTokens - spec.acceptedTokens;
    });
    this.reap();
    return true;
  }

  /** Runs steps until every submitted sequence has finished (tests, benchmarks). */
  runToCompletion(): void {
    while (this.step());
  }

  /** Removes finished and aborted sequences: frees their cache, tells their sinks. */
  private reap(): void {
    for (const list of [this.waiting, this.running])
      for (let i = list.length - 1; i >= 0; i--) {
        const s = list[i];
        if (s.abortRequested && !s.finished) s.finished = s.abortFinish ?? { reason: 'abort' };
        if (!s.finished) continue;
        list.splice(i, 1);
        this.engine.release(s.id, s.finished.reason === 'abort');
        this.counters.finished[s.finished.reason]++;
        s.sink.onFinish(s.finished);
      }
  }
}

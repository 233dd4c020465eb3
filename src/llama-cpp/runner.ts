/**
 * The llama.cpp runtime behind the server routes (server/runner.ts), a peer of the engine runner.
 * Each request runs on one sequence of the one context; sequences that evaluate at the same time
 * share llama_decode batches (node-llama-cpp batches them: continuous batching). A free sequence
 * whose cached tokens share the longest prefix with the prompt is chosen, and that prefix is not
 * evaluated again (--cache-prompt). Log-probabilities always come from the raw next-token
 * distribution; tokens are chosen by faultline's own sampler (engine/sampling.ts), so temperature,
 * top_k, top_p, seed and min_tokens mean what they mean for the faultline runtime. With a draft
 * model or prompt lookup (--spec-type ngram-simple), llama.cpp's side does the choosing
 * (node-llama-cpp's draft verification), greedy only.
 */
import { createRng } from '../core/rng.js';
import { createRowSampler } from '../engine/sampling.js';
import { isNeutral } from '../engine/sampling-penalties.js';
import type {
  EmittedToken,
  Finish,
  FinishReason,
  PromptLogprob,
  SequenceRequest,
} from '../engine/sequence.js';
import {
  eventStream,
  NO_FINISHES,
  type GenerationEvent,
  type GenerationStream,
  type Refusal,
  type Runner,
  type RunnerMetrics,
} from '../server/runner.js';
import { speculates, type LlamaCppOptions } from './options.js';
import { emittedToken, logitsFromProbabilities, promptEntry } from './probabilities.js';
import type { LlamaCppRuntime } from './runtime.js';
import { runtimeSamples, type LlamaCppCounters } from './runner-metrics.js';
import { plantedKeep, plantedToken } from './planted-faults.js';

type Sequence = ReturnType<LlamaCppRuntime['context']['getSequence']>;
/** node-llama-cpp brands token ids; faultline's are plain numbers of the same vocabulary. */
type Token = import('node-llama-cpp').Token;
type ControlledEvaluateInputItem = import('node-llama-cpp').ControlledEvaluateInputItem;
const asTokens = (ids: readonly number[]) => ids as unknown as Token[];

interface Job {
  request: SequenceRequest;
  push: (e: GenerationEvent) => void;
  abortedWith: Finish | null;
}

export class LlamaCppRunner implements Runner {
  private readonly free: Sequence[] = [];
  private readonly waiting: Job[] = [];
  private running = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private readonly running_jobs = new Set<Job>();
  /** Prompt lookup's predictor per sequence: node-llama-cpp's sequence API never tells it the prompt, so each request does. */
  private readonly lookups = new Map<Sequence, InstanceType<LlamaCppRuntime['binding']['InputLookupTokenPredictor']>>();
  readonly counters: LlamaCppCounters = {
    finished: NO_FINISHES(),
    promptTokens: 0,
    generationTokens: 0,
    prefixQueries: 0,
    prefixHits: 0,
    shifts: 0,
    draftValidated: 0,
    draftRefuted: 0,
  };

  constructor(
    readonly runtime: LlamaCppRuntime,
    readonly options: LlamaCppOptions,
  ) {
    const { binding, context, draftContexts } = runtime;
    for (let i = 0; i < options.parallel; i++) {
      const draft = draftContexts[i];
      const tokenPredictor = draft
        ? new binding.DraftSequenceTokenPredictor(draft.getSequence(), {
            minTokens: options.draftMin,
            maxTokens: options.draftMax,
            minConfidence: options.draftPMin,
          })
        : undefined;
      const lookup =
        options.specType === 'ngram-simple'
          ? new binding.InputLookupTokenPredictor({
              patternLength: { min: options.ngramSizeN, max: options.ngramSizeN },
              predictionLength: { min: 1, max: options.ngramSizeM },
            })
          : undefined;
      const sequence = context.getSequence({
        ...(tokenPredictor || lookup ? { tokenPredictor: tokenPredictor ?? lookup } : {}),
        ...(options.contextShift ? { contextShift: { strategy: 'eraseBeginning' } } : {}),
      });
      if (lookup) this.lookups.set(sequence, lookup);
      this.free.push(sequence);
    }
  }

  get busy(): boolean {
    return this.running > 0 || this.waiting.length > 0;
  }

  /** The most tokens (prompt + output) one sequence can hold; with context shift a request may go beyond it. */
  get sequenceCapacity(): number {
    return this.runtime.sequenceContextSize;
  }

  refusal(r: SequenceRequest): Refusal | null {
    // with context shift a long prompt is evaluated as a long generation is, erasing the oldest
    // tokens whenever the sequence fills (node-llama-cpp decodes up to the free cells, then shifts),
    // so a prompt scored whole shifts at the same positions as the generation that produced it
    if (!this.options.contextShift && r.promptIds.length >= this.sequenceCapacity)
      return {
        message: `the prompt (${r.promptIds.length} tokens) does not fit one llama.cpp sequence of ${this.sequenceCapacity} cells (--ctx-size / --parallel) and context shift is off`,
        param: 'prompt',
      };
    if (!this.options.contextShift && r.promptIds.length + r.maxTokens > this.sequenceCapacity)
      return {
        message: `prompt (${r.promptIds.length} tokens) + max_tokens ${r.maxTokens} exceed one llama.cpp sequence of ${this.sequenceCapacity} cells, and context shift is off`,
        param: 'max_tokens',
      };
    if (r.penalties && !isNeutral(r.penalties))
      return {
        message: 'the llama.cpp runtime does not apply repetition, frequency or presence penalties',
        param: 'repetition_penalty',
      };
    if (r.logprobsMode === 'processed_logprobs')
      return { message: 'the llama.cpp runtime reports raw log-probabilities only', param: 'logprobs' };
    if (speculates(this.options)) {
      const drafter = this.options.modelDraft ? '--model-draft' : `--spec-type ${this.options.specType}`;
      if (r.sampling.temperature > 0)
        return {
          message: `with ${drafter} the llama.cpp runtime decodes greedily only (node-llama-cpp verifies drafts under its own sampler)`,
          param: 'temperature',
        };
      if ((r.minTokens ?? 0) > 0)
        return {
          message: `with ${drafter} the llama.cpp runtime cannot hold back EOS for min_tokens`,
          param: 'min_tokens',
        };
    }
    return null;
  }

  submit(request: SequenceRequest): GenerationStream {
    if (this.closed) throw new Error('the llama.cpp runtime is shutting down');
    const job: Job = { request, push: () => {}, abortedWith: null };
    const { stream, push } = eventStream((finish) => {
      job.abortedWith = finish ?? { reason: 'abort' };
      const at = this.waiting.indexOf(job);
      if (at >= 0) {
        this.waiting.splice(at, 1);
        this.finish(job, job.abortedWith);
        this.settle();
      }
    });
    job.push = push;
    this.waiting.push(job);
    this.pump();
    return stream;
  }

  metrics(): RunnerMetrics {
    const c = this.counters;
    const draft = speculates(this.options);
    return {
      running: this.running,
      waiting: this.waiting.length,
      finished: { ...c.finished },
      promptTokens: c.promptTokens,
      generationTokens: c.generationTokens,
      // node-llama-cpp counts draft tokens validated and refuted, not the verify steps that carried them
      spec: {
        draftTokens: draft ? c.draftValidated + c.draftRefuted : 0,
        acceptedTokens: draft ? c.draftValidated : 0,
      },
      extra: runtimeSamples(c, this.runtime.batch, this.options, {
        capacity: this.sequenceCapacity,
        threads: this.runtime.context.idealThreads,
        batchSize: this.runtime.context.batchSize,
      }),
    };
  }

  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async shutdown(timeoutMs: number): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.whenIdle(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    for (const job of this.waiting.splice(0)) this.finish(job, { reason: 'abort' });
    for (const job of this.running_jobs) job.abortedWith ??= { reason: 'abort' };
    await this.whenIdle();
    await this.runtime.dispose();
  }

  private pump(): void {
    while (this.waiting.length && this.free.length) {
      const job = this.waiting.shift()!;
      const sequence = this.takeSequence(job.request);
      this.running++;
      this.running_jobs.add(job);
      void this.run(job, sequence)
        .catch((e: unknown) =>
          this.finish(job, { reason: 'error', error: e instanceof Error ? e.message : String(e) }),
        )
        .finally(() => {
          this.running--;
          this.running_jobs.delete(job);
          this.free.push(sequence);
          this.pump();
          this.settle();
        });
    }
  }

  private settle(): void {
    if (!this.busy) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** The free sequence whose cached tokens share the longest prefix with the prompt. */
  private takeSequence(r: SequenceRequest): Sequence {
    let best = 0;
    if (this.options.cacheReuse) {
      let bestLength = -1;
      this.free.forEach((s, i) => {
        const n = s.compareContextTokens(asTokens(r.promptIds)).firstDifferentIndex;
        if (n > bestLength) [best, bestLength] = [i, n];
      });
    }
    return this.free.splice(best, 1)[0];
  }

  private finish(job: Job, finish: Finish): void {
    this.counters.finished[finish.reason as FinishReason]++;
    job.push({ kind: 'finish', finish });
  }

  /** Aligns the sequence's cache with the prompt: keeps the shared prefix (never the whole prompt: its last token is evaluated to get the next distribution). */
  private async alignCache(sequence: Sequence, r: SequenceRequest): Promise<number[]> {
    const prompt = [...r.promptIds];
    const reuse = this.options.cacheReuse && (r.promptLogprobs === null || r.promptLogprobs === undefined);
    const shared = reuse
      ? Math.min(sequence.compareContextTokens(asTokens(prompt)).firstDifferentIndex, prompt.length - 1)
      : 0;
    const keep = plantedKeep(this.options.plantedFaults, shared, sequence.nextTokenIndex, prompt.length);
    // erasing at or below the first cell a sliding-window cache still holds cannot keep the prefix:
    // node-llama-cpp then evaluates the kept tokens again inside the erase (its meter counts them)
    const metered = sequence.tokenMeter.usedInputTokens;
    if (sequence.nextTokenIndex > keep)
      await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
    const kept = sequence.nextTokenIndex;
    const reused = kept - (sequence.tokenMeter.usedInputTokens - metered);
    this.counters.prefixQueries += prompt.length;
    this.counters.prefixHits += reused;
    this.counters.promptTokens += prompt.length - reused;
    return prompt.slice(kept);
  }

  /** Feeds tokens; returns the next-token distribution after the last one (and after each one when `everyRow`), counting context shifts. */
  private async evaluate(sequence: Sequence, tokens: number[], everyRow: boolean): Promise<Float32Array[]> {
    const V = this.runtime.vocabulary.size;
    const before = sequence.nextTokenIndex;
    const items = asTokens(tokens).map((t, i): ControlledEvaluateInputItem =>
      everyRow || i === tokens.length - 1 ? [t, { generateNext: { probabilities: true } }] : t,
    );
    const out = await sequence.controlledEvaluate(items);
    if (sequence.nextTokenIndex < before + tokens.length) this.counters.shifts++;
    const rows: Float32Array[] = [];
    out.forEach((o) => {
      if (o?.next.probabilities) rows.push(logitsFromProbabilities(o.next.probabilities, V));
    });
    return rows;
  }

  private async run(job: Job, sequence: Sequence): Promise<void> {
    const r = job.request;
    const rest = await this.alignCache(sequence, r);
    const wantsPromptLogprobs = r.promptLogprobs !== null && r.promptLogprobs !== undefined;
    const emitter = new TokenEmitter(
      job,
      r,
      this.runtime.vocabulary.eosId,
      this.counters,
      this.sequenceCapacity,
      this.options.contextShift,
    );
    if (speculates(this.options)) return this.runWithDraft(job, sequence, rest, emitter, wantsPromptLogprobs);
    const rows = await this.evaluate(sequence, rest, wantsPromptLogprobs);
    if (wantsPromptLogprobs)
      job.push({ kind: 'prompt_logprobs', entries: promptLogprobs(r, rows.slice(0, -1)) });
    const sampler = createRowSampler({
      sampling: r.sampling,
      rng: createRng(r.seed),
      minTokens: r.minTokens ?? 0,
      stopIds: emitter.stopIds,
    });
    let row = rows[rows.length - 1];
    for (;;) {
      if (job.abortedWith) return this.finish(job, job.abortedWith);
      const id = plantedToken(
        this.options.plantedFaults,
        row,
        sampler.pick(row, emitter.count),
        sequence.nextTokenIndex,
        emitter.count,
      );
      if (emitter.emit(row, id)) return;
      row = (await this.evaluate(sequence, [id], false))[0];
    }
  }

  /** Speculative decoding: node-llama-cpp's draft loop chooses greedily; every token comes with its verified distribution. */
  private async runWithDraft(
    job: Job,
    sequence: Sequence,
    rest: number[],
    emitter: TokenEmitter,
    wantsPromptLogprobs: boolean,
  ): Promise<void> {
    const r = job.request;
    this.lookups.get(sequence)?.updateInputTokens(asTokens(r.promptIds));
    const before = { ...sequence.tokenPredictions };
    let feed = rest;
    if (wantsPromptLogprobs && rest.length > 1) {
      const rows = await this.evaluate(sequence, rest.slice(0, -1), true);
      job.push({ kind: 'prompt_logprobs', entries: promptLogprobs(r, rows) });
      feed = rest.slice(-1);
    } else if (wantsPromptLogprobs) job.push({ kind: 'prompt_logprobs', entries: [null] });
    const V = this.runtime.vocabulary.size;
    const generator = sequence.evaluateWithMetadata(
      asTokens(feed),
      { probabilities: true },
      { temperature: 0, yieldEogToken: true },
    );
    try {
      for await (const out of generator) {
        if (job.abortedWith) return this.finish(job, job.abortedWith);
        if (emitter.emit(logitsFromProbabilities(out.probabilities, V), out.token)) return;
      }
      this.finish(job, { reason: 'length' });
    } finally {
      await generator.return();
      const after = sequence.tokenPredictions;
      this.counters.draftValidated += after.validated - before.validated;
      this.counters.draftRefuted += after.refuted - before.refuted;
    }
  }
}

/** prompt_logprobs from the rows after prompt tokens 0 … P − 2: position p is scored by row p − 1. */
function promptLogprobs(r: SequenceRequest, rows: Float32Array[]): PromptLogprob[] {
  const k = r.promptLogprobs ?? 0;
  return [null, ...rows.map((row, i) => promptEntry(row, r.promptIds[i + 1], k))];
}

/** Appends generated tokens and decides when a request stops, as engine/sequence.ts does for the faultline runtime. */
class TokenEmitter {
  count = 0;
  readonly stopIds: number[];
  private total: number;

  constructor(
    private readonly job: Job,
    private readonly r: SequenceRequest,
    private readonly eosId: number,
    private readonly counters: LlamaCppCounters,
    private readonly capacity: number,
    private readonly contextShift: boolean,
  ) {
    this.stopIds = [...(r.ignoreEos ? [] : [eosId]), ...(r.stopTokenIds ?? [])];
    this.total = r.promptIds.length;
  }

  /** Reports one token; true when the request is finished (its finish already pushed). */
  emit(row: Float32Array, id: number): boolean {
    const token: EmittedToken = emittedToken(row, id, this.r.logprobs ?? 0);
    this.count++;
    this.total++;
    this.counters.generationTokens++;
    const minReached = this.count >= (this.r.minTokens ?? 0);
    let finish: Finish | undefined;
    if (minReached && id === this.eosId && !this.r.ignoreEos) finish = { reason: 'stop', stopTokenId: null };
    else if (minReached && this.r.stopTokenIds?.includes(id)) finish = { reason: 'stop', stopTokenId: id };
    else if (this.count >= this.r.maxTokens || (!this.contextShift && this.total >= this.capacity))
      finish = { reason: 'length' };
    if (finish) this.counters.finished[finish.reason]++;
    this.job.push({ kind: 'tokens', tokens: [token], ...(finish ? { finish } : {}) });
    return finish !== undefined;
  }
}

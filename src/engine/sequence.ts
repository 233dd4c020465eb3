/**
 * One request's state inside the scheduler: its tokens, what the next engine step feeds it, how the
 * step's logits become emitted tokens (plain decoding or draft verification), and when it stops.
 *
 * Cache invariant: every token except the last emitted one is in the KV cache; the next step feeds
 * that last token (plus drafts, when speculating) as its first query row.
 *
 * The prompt may start partly cached (a prefix-cache hit: the first `prefillDone` tokens), and a
 * preempted sequence is recomputed (vLLM's preemption by recompute): its cache is dropped, and it
 * prefills prompt AND output again before it decodes on — reporting nothing twice.
 */
import { createRng } from '../core/rng.js';
import type { Model } from './model.js';
import { processedRow, type LogprobsMode } from './processed-logprobs.js';
import { NO_PENALTIES, PenaltyHistory, isNeutral, type PenaltyParams } from './sampling-penalties.js';
import { createRowSampler, logSoftmax, topLogprobs, type SamplingParams, type TokenLogprob } from './sampling.js';
import { PromptLogprobsScorer } from './sequence-prompt-logprobs.js';
import { NO_STATE_FAULTS, type StateFaults } from './state-faults.js';
import type { SpecConfig } from './speculative/config.js';
import { proposeMtp, type MtpHead } from './speculative/mtp.js';
import { proposeNgram } from './speculative/ngram.js';
import { penaltiesDroppedIn } from './speculative/penalties-dropped.js';
import { SuffixTrie } from './speculative/suffix.js';
import { verifyDrafts, type RowSampler } from './speculative/verify.js';

export interface SequenceRequest {
  promptIds: readonly number[];
  /** ≥ 1 */
  maxTokens: number;
  minTokens?: number;
  ignoreEos?: boolean;
  stopTokenIds?: readonly number[];
  sampling: SamplingParams;
  seed: number;
  /** Top alternatives per generated token (0: only the chosen token's log-probability). */
  logprobs?: number;
  /** Prompt log-probabilities with this many alternatives (−1: the whole vocabulary); null: none. */
  promptLogprobs?: number | null;
  /** Repetition, frequency and presence penalties (default: none). */
  penalties?: PenaltyParams;
  /** Where reported log-probabilities come from (vLLM's --logprobs-mode; default raw_logprobs). */
  logprobsMode?: LogprobsMode;
}

export interface EmittedToken {
  id: number;
  /** log-probability under the raw logits */
  logprob: number;
  top: TokenLogprob[];
}

/** prompt_logprobs entry of one prompt position (null for the first): the prompt token and the top alternatives. */
export type PromptLogprob = { id: number; logprob: number; rank: number; top: TokenLogprob[] } | null;

export type FinishReason = 'length' | 'stop' | 'abort' | 'error';

export interface Finish {
  reason: FinishReason;
  /** The stop token id that ended the sequence (null for EOS and length), or an error message. */
  stopTokenId?: number | null;
  error?: string;
}

/** Where a sequence's results go (the server route, a test, a benchmark). */
export interface SequenceSink {
  onPromptLogprobs?(entries: PromptLogprob[]): void;
  onTokens(tokens: EmittedToken[]): void;
  onFinish(finish: Finish): void;
}

export interface SpecStats {
  /** Verify steps that carried at least one draft (vLLM's num_drafts). */
  drafts: number;
  draftTokens: number;
  acceptedTokens: number;
}

export class Sequence {
  readonly tokens: number[]; // prompt + output
  readonly output: EmittedToken[] = [];
  /** Every token to prefill is in the cache and the next token emitted: the sequence decodes. */
  prefilled = false;
  /** Tokens to prefill in the cache so far (a prefix-cache hit starts it; chunked prefill feeds the rest over several steps). */
  prefillDone = 0;
  /** Times this sequence was preempted (its cache dropped, to be recomputed). */
  preemptions = 0;
  /** prompt_logprobs, chunk by chunk (null: not asked for, or already reported). */
  private promptScorer: PromptLogprobsScorer | null;
  finished: Finish | null = null;
  abortRequested = false;
  /** How an abort reports itself (null: reason "abort"). */
  abortFinish: Finish | null = null;
  /** Drafts fed in the step now running (empty for plain decode or prefill). */
  private drafts: number[] = [];
  private cacheBefore = 0;
  private hidden: Float32Array | null = null;
  private readonly trie: SuffixTrie | null;
  private readonly sampler: RowSampler;
  /** The same without penalties: what a verify step uses under the specdec-penalties-dropped fault model. */
  private readonly unpenalized: RowSampler;
  /** Prompt and output token counts, kept only where penalties or processed logprobs read them. */
  private readonly history: PenaltyHistory | null;
  private readonly stopIds: readonly number[];
  readonly spec: SpecStats = { drafts: 0, draftTokens: 0, acceptedTokens: 0 };

  constructor(
    readonly id: number,
    readonly request: SequenceRequest,
    readonly sink: SequenceSink,
    private readonly model: Model,
    private readonly specConfig: SpecConfig | null,
    private readonly maxModelLen: number,
    private readonly faults: StateFaults = NO_STATE_FAULTS,
  ) {
    this.tokens = [...request.promptIds];
    const wanted = request.promptLogprobs !== undefined && request.promptLogprobs !== null;
    this.promptScorer = wanted ? new PromptLogprobsScorer(request.promptIds, request.promptLogprobs!, model.config.vocabSize, faults) : null;
    const c = model.config;
    const stopIds = [...(request.ignoreEos ? [] : [c.eosTokenId]), ...(request.stopTokenIds ?? [])];
    this.stopIds = stopIds;
    const base = { sampling: request.sampling, rng: createRng(request.seed), minTokens: request.minTokens ?? 0, stopIds };
    const penalties = request.penalties ?? NO_PENALTIES;
    const history = isNeutral(penalties) && request.logprobsMode !== 'processed_logprobs' ? null : new PenaltyHistory(request.promptIds);
    this.history = history;
    // position outIndex of a verify step comes after the drafts accepted before it: they count as output
    const penalize = (logits: Float32Array, outIndex: number) => history!.penalize(logits, penalties, this.drafts.slice(0, outIndex - this.output.length));
    this.unpenalized = createRowSampler(base);
    this.sampler = isNeutral(penalties) ? this.unpenalized : createRowSampler({ ...base, processors: [penalize] });
    this.trie = specConfig?.method === 'suffix' ? new SuffixTrie(specConfig.suffix.maxTreeDepth) : null;
    this.trie?.extend(this.tokens);
  }

  /** What must be in the cache before decoding: the prompt, or after a preemption prompt + output (all tokens so far either way). */
  get prefillTokens(): readonly number[] {
    return this.tokens;
  }

  /** Tokens to prefill not yet in the cache. */
  get prefillLeft(): number {
    return this.prefillTokens.length - this.prefillDone;
  }

  /** Whether prompt_logprobs are still to be computed (such a request never reads the prefix cache, as in vLLM). */
  get scoresPrompt(): boolean {
    return this.promptScorer !== null;
  }

  /** Drafts among the tokens of the step now running. */
  get numDrafts(): number {
    return this.drafts.length;
  }

  /** Admission: the first `cached` tokens to prefill are already in the cache (a prefix-cache hit). */
  startPrefill(cached: number): void {
    this.prefillDone = cached;
  }

  /**
   * Preemption by recompute: the cache was dropped; prefill everything again. Prompt logprobs not yet
   * reported start over; tokens already emitted stay emitted.
   */
  preempt(): void {
    if (this.promptScorer && !this.prefilled) this.promptScorer = new PromptLogprobsScorer(this.request.promptIds, this.request.promptLogprobs!, this.model.config.vocabSize, this.faults);
    if (this.prefilled) this.preemptions++;
    this.prefilled = false;
    this.prefillDone = 0;
    this.drafts = [];
  }

  /**
   * The query tokens of the next step, at most `maxRows` of them (the step's token budget left):
   * the next chunk of the prompt, or the last token plus drafts (as many as fit).
   */
  nextStep(head: MtpHead, maxRows = Infinity): number[] {
    if (!this.prefilled) {
      this.drafts = [];
      return this.prefillTokens.slice(this.prefillDone, this.prefillDone + maxRows);
    }
    const last = this.tokens[this.tokens.length - 1];
    this.drafts = this.propose(head, maxRows - 1);
    return [last, ...this.drafts];
  }

  private propose(head: MtpHead, maxDrafts: number): number[] {
    const s = this.specConfig;
    if (!s) return [];
    // room: the step writes 1 + k' tokens to the cache and may emit k' + 1; stay within max_model_len
    const k = Math.min(s.numSpeculativeTokens, maxDrafts, this.maxModelLen - this.tokens.length - 1);
    if (k <= 0) return [];
    if (s.method === 'ngram') return proposeNgram(this.tokens, s.promptLookupMin, s.promptLookupMax, k);
    if (s.method === 'suffix') return this.trie!.propose(k, s.suffix);
    return proposeMtp(head, this.hidden!, this.tokens[this.tokens.length - 1], k);
  }

  /** Called with the cache length before the step, so a verify step can roll back what it rejects. */
  beginStep(cacheLength: number): void {
    this.cacheBefore = cacheLength;
  }

  /**
   * Consumes the step's logits [rows, V] and hidden states [rows, d]; returns the cache length to keep
   * (rejected drafts are rolled back by the caller).
   */
  finishStep(logits: Float32Array, hidden: Float32Array, rows: number): number {
    const { vocabSize: V, hiddenSize: d } = this.model.config;
    const row = (t: number) => logits.subarray(t * V, (t + 1) * V);
    if (!this.prefilled) {
      this.promptScorer?.scoreChunk(logits, rows, this.prefillDone);
      this.prefillDone += rows;
      if (this.prefillLeft > 0) return this.cacheBefore + rows; // a chunk: nothing to emit yet
      this.prefilled = true;
      if (this.promptScorer) this.sink.onPromptLogprobs?.(this.promptScorer.finish());
      this.promptScorer = null;
      const id = this.sampler.pick(row(rows - 1), this.output.length);
      this.hidden = hidden.slice((rows - 1) * d, rows * d);
      this.emit([id], (t) => row(rows - 1 + t));
      return this.cacheBefore + rows;
    }
    // plain decode: the target's own choice; with drafts, verification (speculative/verify.ts) —
    // without penalties under the specdec-penalties-dropped fault model
    const sampler = this.drafts.length && penaltiesDroppedIn(this.specConfig?.faultModel, this.drafts.length) ? this.unpenalized : this.sampler;
    const verdict = this.drafts.length ? verifyDrafts(row, this.drafts, sampler, this.output.length) : { accepted: 0, tokens: [sampler.pick(row(0), this.output.length)] };
    if (this.drafts.length > 0) {
      this.spec.drafts++;
      this.spec.draftTokens += this.drafts.length;
      this.spec.acceptedTokens += verdict.accepted;
    }
    this.hidden = hidden.slice(verdict.accepted * d, (verdict.accepted + 1) * d);
    this.emit(verdict.tokens, row);
    return this.cacheBefore + 1 + verdict.accepted; // the KV of [last, accepted drafts]; the rejected ones are rolled back
  }

  /** Appends tokens one by one until a stop condition; reports them to the sink. */
  private emit(ids: number[], rowOf: (t: number) => Float32Array): void {
    const c = this.model.config;
    const k = this.request.logprobs ?? 0;
    const out: EmittedToken[] = [];
    const r = this.request;
    for (let t = 0; t < ids.length && !this.finished; t++) {
      const id = ids[t];
      const raw =
        r.logprobsMode === 'processed_logprobs'
          ? processedRow(rowOf(t), {
              history: this.history!, // kept in this mode
              penalties: r.penalties ?? NO_PENALTIES,
              outIndex: this.output.length,
              minTokens: r.minTokens ?? 0,
              stopIds: this.stopIds,
              temperature: r.sampling.temperature,
            })
          : rowOf(t);
      out.push({ id, logprob: logSoftmax(raw)[id], top: k > 0 ? topLogprobs(raw, k) : [] });
      this.tokens.push(id);
      this.history?.append(id);
      this.trie?.append(id);
      this.output.push(out[out.length - 1]);
      const n = this.output.length;
      const minReached = n >= (this.request.minTokens ?? 0);
      if (minReached && id === c.eosTokenId && !this.request.ignoreEos) this.finished = { reason: 'stop', stopTokenId: null };
      else if (minReached && this.request.stopTokenIds?.includes(id)) this.finished = { reason: 'stop', stopTokenId: id };
      else if (n >= this.request.maxTokens || this.tokens.length >= this.maxModelLen) this.finished = { reason: 'length' };
    }
    if (out.length) this.sink.onTokens(out);
  }
}

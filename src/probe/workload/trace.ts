/**
 * The workload suite's traffic: a seeded trace of requests whose start depends on what the others
 * have done (finished, streamed k tokens, been cancelled), so that the state each stateful bug class
 * needs is reached on any server speed, not by lucky timing. One round holds three families, one
 * after the other (the burst and the neighbours overlap within theirs):
 *
 *  eviction   prefix X (page-aligned on even rounds, unaligned on odd ones) is cached by a first
 *             request, a burst of unrelated prompts past the KV capacity evicts it (and preempts),
 *             then X comes back twice with new suffixes.
 *  cancel     a streamed request on prefix P is cancelled mid-decode while two neighbours that share
 *             P still decode; unrelated requests then take whatever blocks the cancel freed.
 *  prompt-lp  a long prompt with prompt_logprobs (long enough for chunked prefill where the server
 *             chunks), then one sharing its prefix (a prefix-cache hit under chunking).
 *  parallel   one request with n = 3 choices (parallel sampling: the choices share the prompt's
 *             blocks), each choice judged against the same request alone.
 *
 * A trace is plain JSON (`--save-trace`), so a finding replays exactly (`--replay`).
 */
import { UserError } from '../../core/errors.js';
import { createRng, type Rng } from '../../core/rng.js';
import type { OptionalFamily } from '../suite-needs.js';
import type { KvCapacity } from './capacity.js';

/** What a request's state had: the report groups corrupt requests by these. */
export type WorkloadFeature =
  | 'prefix-hit'
  | 'after-eviction'
  | 'burst-past-capacity'
  | 'cancelled-neighbour'
  | 'after-cancel'
  | 'prompt-logprobs'
  | 'parallel-sampling'
  | 'unaligned-prefix';

export interface StartCondition {
  /** Id of the request this one waits for. */
  after: string;
  event: 'done' | 'tokens' | 'cancelled';
  /** For `tokens`: how many streamed tokens of `after` first. */
  tokens?: number;
}

export interface TraceRequest {
  id: string;
  prompt: number[];
  maxTokens: number;
  /** Every condition must hold before the request is sent (none: at the round's start). */
  start: StartCondition[];
  /** Seeded extra delay after the conditions hold (arrival jitter), in ms. */
  delayMs: number;
  /** Streamed and cancelled (client disconnect) once this many tokens arrived; never judged. */
  cancelAfterTokens?: number;
  promptLogprobs?: boolean;
  /**
   * Parallel sampling: n choices of one request (they share the prompt's KV blocks), sampled at
   * temperature 1 with top_k 1 — vLLM refuses n > 1 under greedy decoding, and top_k 1 keeps every
   * choice the argmax, so each is judged like a greedy request against the reference alone with
   * n = 1 and seed + i, the seed vLLM gives choice i (vllm/v1/engine/parallel_sampling.py).
   */
  n?: number;
  features: WorkloadFeature[];
}

/** Choices of the parallel-sampling request. */
export const PARALLEL_CHOICES = 3;

export interface WorkloadTrace {
  format: 'faultline-workload-trace';
  version: 1;
  seed: number;
  capacity: KvCapacity;
  maxModelLen: number;
  rounds: TraceRequest[][];
}

export interface TraceShape {
  capacity: KvCapacity;
  maxModelLen: number;
  /** Generation length of the judged decodes. */
  maxTokens: number;
  seed: number;
  rounds: number;
  /** Token ids the prompts are cut from (the server's own tokens of held-out prose). */
  pool: readonly number[];
  /** Families a server cannot answer (suite-needs.ts), left out of every round. */
  leaveOut?: readonly OptionalFamily[];
}

/** Tokens the cancelled request streams before its client goes away. */
export const CANCEL_AFTER_TOKENS = 8;
const SHORT_GEN = 4;

function cutter(pool: readonly number[], rng: Rng) {
  return (length: number): number[] => {
    const out: number[] = [];
    while (out.length < length) {
      const at = rng.int(pool.length);
      out.push(...pool.slice(at, at + length - out.length));
    }
    return out;
  };
}

function checkShape(s: TraceShape): void {
  const { blockSize, numGpuBlocks } = s.capacity;
  const room = Math.min(s.maxModelLen, blockSize * numGpuBlocks);
  if (room < 8 * blockSize)
    throw new UserError(
      `the workload suite needs room for 8 blocks in one sequence; the server has ${numGpuBlocks} blocks of ${blockSize} and max_model_len ${s.maxModelLen}`,
    );
  if (s.pool.length < 64) throw new UserError('the prompt text is too short to cut workload prompts from');
  if (!Number.isInteger(s.rounds) || s.rounds < 1) throw new UserError(`--requests ${s.rounds} must be a positive integer`);
}

export function buildRound(s: TraceShape, round: number): TraceRequest[] {
  const rng = createRng(s.seed * 7919 + round);
  const cut = cutter(s.pool, rng);
  const B = s.capacity.blockSize;
  const capacityTokens = B * s.capacity.numGpuBlocks;
  // one sequence must fit the model and the cache, with a token to spare for scoring
  const longest = Math.min(s.maxModelLen, capacityTokens) - 1;
  const gen = Math.min(s.maxTokens, Math.floor(longest / 4));
  const aligned = round % 2 === 0;
  const prefixLen = () => 3 * B + (aligned ? 0 : 1 + rng.int(B - 1));
  const jitter = () => rng.int(15);
  const tag = aligned ? [] : (['unaligned-prefix'] as WorkloadFeature[]);
  const id = (name: string) => `r${round}-${name}`;
  const leave = new Set(s.leaveOut ?? []);
  const out: TraceRequest[] = [];
  const add = (r: Omit<TraceRequest, 'id' | 'delayMs'> & { name: string }) => {
    const { name, ...rest } = r;
    out.push({ id: id(name), delayMs: jitter(), ...rest });
  };

  // eviction family
  const x = cut(prefixLen());
  add({ name: 'evict-first', prompt: [...x, ...cut(5)], maxTokens: SHORT_GEN, start: [], features: [...tag] });
  const fillerLen = Math.max(B, Math.min(longest - gen, Math.floor(capacityTokens / 2)));
  const fillers = Math.min(16, Math.ceil((1.5 * capacityTokens) / (fillerLen + gen)) + 1);
  for (let i = 0; i < fillers; i++)
    add({ name: `burst-${i}`, prompt: cut(fillerLen), maxTokens: gen, start: [{ after: id('evict-first'), event: 'done' }], features: ['burst-past-capacity'] });
  const afterBurst: StartCondition[] = Array.from({ length: fillers }, (_, i) => ({ after: id(`burst-${i}`), event: 'done' }));
  add({ name: 'evict-again-0', prompt: [...x, ...cut(6)], maxTokens: gen, start: afterBurst, features: ['prefix-hit', 'after-eviction', ...tag] });
  add({ name: 'evict-again-1', prompt: [...x, ...cut(7)], maxTokens: gen, start: [{ after: id('evict-again-0'), event: 'done' }], features: ['prefix-hit', 'after-eviction', ...tag] });

  // each family starts when the one before it is done
  let previous: StartCondition[] = [{ after: id('evict-again-1'), event: 'done' }];
  if (!leave.has('cancel')) {
    // cancel family
    const p = cut(prefixLen());
    const cancelGen = Math.min(longest - p.length - 8, 8 * CANCEL_AFTER_TOKENS);
    // the families follow one another: another family's traffic in between would make which block a
    // request gets depend on timing, and a replay would not corrupt the same requests
    add({ name: 'cancelled', prompt: [...p, ...cut(3)], maxTokens: cancelGen, cancelAfterTokens: CANCEL_AFTER_TOKENS, start: previous, features: [...tag] });
    const neighbourGen = Math.min(longest - p.length - 8, Math.max(gen, 4 * CANCEL_AFTER_TOKENS));
    for (const [i, k] of [2, 3].entries())
      add({ name: `neighbour-${i}`, prompt: [...p, ...cut(4 + i)], maxTokens: neighbourGen, start: [{ after: id('cancelled'), event: 'tokens', tokens: k }], features: ['prefix-hit', 'cancelled-neighbour', ...tag] });
    for (let i = 0; i < 2; i++)
      add({ name: `taker-${i}`, prompt: cut(4 * B), maxTokens: SHORT_GEN, start: [{ after: id('cancelled'), event: 'cancelled' }], features: ['after-cancel'] });
    previous = ['neighbour-0', 'neighbour-1', 'taker-0', 'taker-1'].map((n) => ({ after: id(n), event: 'done' }));
  }

  if (!leave.has('prompt-logprobs')) {
    // prompt-logprobs family: as long as fits, so a server with a step token budget chunks it
    const q = cut(Math.min(longest - SHORT_GEN, 1024));
    add({ name: 'plp-first', prompt: q, maxTokens: SHORT_GEN, promptLogprobs: true, start: previous, features: ['prompt-logprobs'] });
    const shared = q.slice(0, q.length - (q.length % B) - B);
    add({ name: 'plp-hit', prompt: [...shared, ...cut(q.length - shared.length)], maxTokens: SHORT_GEN, promptLogprobs: true, start: [{ after: id('plp-first'), event: 'done' }], features: ['prompt-logprobs', 'prefix-hit'] });
    previous = [{ after: id('plp-hit'), event: 'done' }];
  }

  // parallel-sampling family: the choices share three full prompt blocks; each choice's own last
  // block never fills (1 prompt token + a short generation), so the identical tokens the choices
  // generate never make same-key blocks whose registration order would depend on timing, and a
  // replay leaves the cache as the first run did
  if (!leave.has('parallel'))
    add({ name: 'parallel', prompt: cut(3 * B + 1), maxTokens: Math.max(1, Math.min(SHORT_GEN, B - 2)), n: PARALLEL_CHOICES, start: previous, features: ['parallel-sampling'] });
  return out;
}

export function buildTrace(s: TraceShape): WorkloadTrace {
  checkShape(s);
  return {
    format: 'faultline-workload-trace',
    version: 1,
    seed: s.seed,
    capacity: s.capacity,
    maxModelLen: s.maxModelLen,
    rounds: Array.from({ length: s.rounds }, (_, r) => buildRound(s, r)),
  };
}

/** The optional families a trace's requests use (a replay needs the servers to answer them). */
export function familiesUsed(trace: WorkloadTrace): Set<OptionalFamily> {
  const used = new Set<OptionalFamily>();
  for (const q of trace.rounds.flat()) {
    if (q.cancelAfterTokens !== undefined) used.add('cancel');
    if (q.promptLogprobs) used.add('prompt-logprobs');
    if (q.n !== undefined) used.add('parallel');
  }
  return used;
}

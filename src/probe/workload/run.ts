/**
 * `probe --suite workload`: the target serves a seeded stateful trace (trace.ts, schedule.ts); the
 * reference serves each judged request of it alone, one at a time; the oracle per request is the
 * window probe's (generation judged with margins, cross-scores and loops) plus prompt logprobs where
 * the trace asks for them. Rounds go on until the sequential test decides or the rounds run out.
 * Failed or cut-off requests never count as clean, and any of them rules CLEAN out.
 */
import { UserError } from '../../core/errors.js';
import { commonLength } from '../early-stop.js';
import { comparePromptLogprobs } from '../../oracle/prompt-logprobs.js';
import { DEFAULT_MARGIN_POLICY, RunningMargin } from '../../oracle/margin.js';
import { DEFAULT_SEQUENTIAL, SequentialTest, type SequentialPolicy } from '../../oracle/stats.js';
import { judgeRequest } from '../../oracle/verdict.js';
import { ProbeClient, RetryBudget, type ClientOptions } from '../client.js';
import { ServerApi } from '../server-api.js';
import type { Endpoint } from '../types.js';
import { exchange } from './exchange.js';
import { featureShares, type WorkloadOutcome, type WorkloadRecord, type WorkloadReport } from './report.js';
import { runRound, type RoundOutcome } from './schedule.js';
import { buildTrace, familiesUsed, type TraceRequest, type WorkloadTrace } from './trace.js';
import { checkCapabilities, type CapabilityReport } from '../capabilities.js';
import { requireForReplay, workloadFamilies } from '../suite-needs.js';

export interface WorkloadConfig {
  target: Endpoint;
  reference: Endpoint;
  corpus: string;
  rounds: number;
  maxTokens: number;
  seed: number;
  logprobs: number;
  window?: number;
  pageSize: number;
  /** A saved trace to run instead of building one (`--replay`). */
  replay?: WorkloadTrace;
  earlyStop?: boolean;
  sequential?: SequentialPolicy;
  client?: Partial<Pick<ClientOptions, 'timeouts' | 'maxRetries' | 'backoffBaseMs' | 'backoffMaxMs'>>;
  onProgress?: (round: number, rounds: number, judged: number, corrupt: number) => void;
  signal?: AbortSignal;
}

const api = (e: Endpoint, c: WorkloadConfig, budget: RetryBudget, offset: number) =>
  new ServerApi(new ProbeClient({ baseUrl: e.url, apiKey: e.apiKey, budget, seed: c.seed + offset, ...c.client }));

async function tokenPool(reference: ServerApi, corpus: string, seed: number): Promise<number[]> {
  const at = corpus.length > 30_000 ? (seed * 104_729) % (corpus.length - 30_000) : 0;
  const r = await reference.tokenize(corpus.slice(at, at + 30_000));
  if (!r.ok) throw new UserError(`could not tokenize the prompt text on the reference: ${r.error}`);
  return r.value;
}

function record(q: TraceRequest, round: number, outcome: WorkloadOutcome, extra: Partial<WorkloadRecord> = {}): WorkloadRecord {
  return { id: q.id, round, features: q.features, promptLength: q.prompt.length, maxTokens: q.maxTokens, outcome, reasons: [], errors: [], ...extra };
}

export async function runWorkload(c: WorkloadConfig): Promise<WorkloadReport> {
  const budget = new RetryBudget(Math.max(40, 20 * c.rounds));
  const target = api(c.target, c, budget, 1);
  const reference = api(c.reference, c, budget, 2);
  const notes: string[] = [];
  try {
    for (const [name, s] of [['target', target], ['reference', reference]] as const) {
      const r = await s.resolveModel(c.signal);
      if (!r.ok) throw new UserError(`the ${name} at ${s.url} does not answer GET /v1/models: ${r.error}`, { hint: 'is the server up, and is the URL its base (http://host:port)?' });
    }
    const capabilities = await askCapabilities(target, reference, c);
    const families = workloadFamilies({ target: { url: target.url, report: capabilities.target }, reference: { url: reference.url, report: capabilities.reference } });
    if (c.replay) requireForReplay(familiesUsed(c.replay), families.leftOut, families.notes);
    notes.push(...families.notes);
    const measured = capabilities.target.capacity;
    const maxModelLen = Math.min(target.maxModelLen ?? 2048, reference.maxModelLen ?? 2048);
    const capacity = c.replay?.capacity ?? measured ?? { blockSize: c.pageSize, numGpuBlocks: Math.ceil((2 * maxModelLen) / c.pageSize) };
    if (!c.replay && !measured)
      notes.push(`the target does not report vllm:cache_config_info on /metrics: bursts are sized for ${capacity.numGpuBlocks} blocks of ${capacity.blockSize} (twice max_model_len ${maxModelLen}), which may not exhaust its cache`);
    if (measured?.prefixCaching === false) notes.push('the target reports prefix caching off: prefix-hit requests exercise no cache');
    const trace =
      c.replay ??
      buildTrace({ capacity, maxModelLen, maxTokens: c.maxTokens, seed: c.seed, rounds: c.rounds, pool: await tokenPool(reference, c.corpus, c.seed), leaveOut: families.leftOut });
    const sequential = new SequentialTest({ ...DEFAULT_SEQUENTIAL, maxFailedRequests: 0, ...c.sequential });
    const margins = new RunningMargin(DEFAULT_MARGIN_POLICY, c.window);
    const records: WorkloadRecord[] = [];
    let roundsRun = 0;
    for (const [round, requests] of trace.rounds.entries()) {
      if (c.signal?.aborted || (c.earlyStop !== false && sequential.current.verdict !== 'continue')) break;
      const outcomes = await runRound(target, requests, c.logprobs, trace.seed, c.signal);
      roundsRun++;
      for (const q of requests)
        for (const r of await judgeRequestOf(q, round, outcomes.get(q.id), { reference, margins, c }, trace.seed)) {
          records.push(r);
          if (r.outcome === 'cancelled') {
            if (r.notes) notes.push(r.notes);
            continue;
          }
          // A prompt-logprobs mismatch carries no token-level evidence class, so it weighs as weak.
          const outcome = r.outcome === 'corrupt' ? 'corrupt' : r.outcome === 'failed' || r.outcome === 'cut-off' ? 'failed' : 'clean';
          sequential.add(outcome, r.judgement?.evidence.strength);
        }
      c.onProgress?.(round + 1, trace.rounds.length, sequential.current.judged, sequential.current.corrupt);
    }
    notes.push(...streamingNotes(records));
    let final = sequential.current.verdict === 'continue' ? sequential.finish() : { ...sequential.current };
    const lost = records.filter((r) => r.outcome === 'failed' || r.outcome === 'cut-off').length;
    if (final.verdict === 'CLEAN' && lost > 0)
      final = { ...final, verdict: 'INCONCLUSIVE', reason: `${lost} request(s) of the trace failed or were cut off: the state they were to reach was not probed` };
    if (c.signal?.aborted && final.verdict === 'CLEAN') final = { ...final, verdict: 'INCONCLUSIVE', reason: 'the probe was stopped before the trace ended' };
    const count = (o: WorkloadOutcome) => records.filter((r) => r.outcome === o).length;
    // a parallel-sampling request is judged, and counted, once per choice
    const planned = trace.rounds.reduce((n, r) => n + r.reduce((k, q) => k + (q.n ?? 1), 0), 0);
    const { features, shared } = featureShares(records);
    const errorCounts = new Map<string, number>();
    for (const r of records) for (const e of r.errors) errorCounts.set(e, (errorCounts.get(e) ?? 0) + 1);
    return {
      suite: 'workload',
      verdict: final.verdict as WorkloadReport['verdict'],
      reason: final.reason,
      target: { url: target.url, model: target.model },
      reference: { url: reference.url, model: reference.model },
      capacity: { ...capacity, source: c.replay || measured ? 'metrics' : 'assumed' },
      capabilities,
      settings: { seed: trace.seed, rounds: roundsRun, maxTokens: c.maxTokens, logprobs: c.logprobs, replayed: c.replay !== undefined },
      counts: {
        planned,
        judged: count('identical') + count('benign-drift') + count('corrupt'),
        identical: count('identical'),
        'benign-drift': count('benign-drift'),
        corrupt: count('corrupt'),
        failed: count('failed'),
        'cut-off': count('cut-off'),
        cancelled: count('cancelled'),
        notRun: planned - records.length,
      },
      sequential: final,
      features,
      sharedByCorrupt: shared,
      errors: [...errorCounts].map(([message, n]) => ({ message, count: n })).sort((a, b) => b.count - a.count),
      notes: [...new Set(notes)],
      requests: records,
      trace: { ...trace, rounds: trace.rounds.slice(0, roundsRun) },
    };
  } finally {
    await target.client.close();
    await reference.client.close();
  }
}

/** Both servers' capabilities, asked on a short prompt of the reference's tokens. */
async function askCapabilities(target: ServerApi, reference: ServerApi, c: WorkloadConfig): Promise<{ target: CapabilityReport; reference: CapabilityReport }> {
  const t = await reference.tokenize(c.corpus.slice(0, 400));
  if (!t.ok) throw new UserError(`could not tokenize the prompt text on the reference: ${t.error}`);
  const o = { prompt: t.value.slice(0, 24), logprobs: c.logprobs, seed: c.seed, signal: c.signal };
  return {
    target: await checkCapabilities(c.target, target, { ...o, scope: 'workload' }),
    reference: await checkCapabilities(c.reference, reference, { ...o, scope: 'workload-reference' }),
  };
}

/** What judges each request: the reference that runs it alone, the running margin, the run's settings. */
interface Judging {
  reference: ServerApi;
  margins: RunningMargin;
  c: WorkloadConfig;
}

/** Choice i of a parallel-sampling request is recorded (and replayed) as `ID.cI`. */
const choiceId = (q: TraceRequest, i: number): string => `${q.id}.c${i}`;

/**
 * The records of one trace request: one, or one per choice of a parallel-sampling request (each
 * against the request alone with n = 1 and seed + i, as vLLM seeds choice i).
 */
async function judgeRequestOf(q: TraceRequest, round: number, got: RoundOutcome | undefined, judging: Judging, seed: number): Promise<(WorkloadRecord & { notes?: string })[]> {
  if (q.n === undefined) return [await judgeOne(q, round, got, judging, seed)];
  const out: WorkloadRecord[] = [];
  for (let i = 0; i < q.n; i++) {
    const alone = { ...q, id: choiceId(q, i), n: 1 };
    const mine =
      got?.kind === 'judged' && got.result.ok
        ? ({ kind: 'judged', result: { ...got.result, value: { generation: got.result.value.choices![i] } } } as const)
        : got;
    out.push(await judgeOne(alone, round, mine, judging, seed + i));
  }
  return out;
}

async function judgeOne(q: TraceRequest, round: number, got: RoundOutcome | undefined, judging: Judging, seed: number): Promise<WorkloadRecord & { notes?: string }> {
  const { reference, margins, c } = judging;
  if (!got) return record(q, round, 'cut-off', { errors: ['never started'] });
  if (got.kind === 'cut-off') return record(q, round, 'cut-off', { errors: [got.reason] });
  if (got.kind === 'failed') return record(q, round, 'failed', { errors: [`target: ${got.error}`] });
  const started = got.released ? { started: `started when ${got.released}` } : {};
  if (got.kind === 'cancelled') {
    const streamed = { streamed: { tokens: got.tokens, events: got.events, ...(got.countedBy ? { countedBy: got.countedBy } : {}) } };
    const finishedFirst = `${q.id} finished after ${got.tokens} token(s) in ${got.events} streamed event(s), before the trace could cancel it`;
    return { ...record(q, round, 'cancelled', { ...started, ...streamed }), ...(got.cancelled ? {} : { notes: finishedFirst }) };
  }
  if (!got.result.ok) return record(q, round, 'failed', { errors: [`target: ${got.result.error}`] });
  const cand = got.result.value;
  const alone = await exchange(reference, q, c.logprobs, seed, c.signal);
  if (!alone.ok) return record(q, round, 'failed', { errors: [`reference: ${alone.error}`] });
  const ref = alone.value;
  const common = commonLength(ref.generation, cand.generation, q.maxTokens);
  const differ = common.reference.tokens.some((t, i) => t !== common.candidate.tokens[i]);
  const scores = differ ? await reference.score(q.prompt, common.candidate.tokens, c.logprobs, seed, c.signal) : undefined;
  if (scores && !scores.ok) return record(q, round, 'failed', { errors: [`reference scoring: ${scores.error}`] });
  const judged = judgeRequest({
    reference: common.reference,
    candidate: common.candidate,
    scores: scores?.value,
    promptLength: q.prompt.length,
    frame: { window: c.window, pageSize: c.pageSize },
    margin: margins.next(common.reference, common.candidate, q.prompt.length),
  });
  const judgement = common.note ? { ...judged, notes: [...judged.notes, common.note] } : judged;
  const plp = ref.promptScores && cand.promptScores ? comparePromptLogprobs(ref.promptScores, cand.promptScores) : undefined;
  const reasons = [...judgement.reasons];
  if (plp?.corrupt)
    reasons.push(`prompt_logprobs differ from the request alone at ${plp.offCount} of ${plp.compared} positions (first ${plp.offPositions.join(', ')}; up to ${plp.maxDelta.toFixed(2)} nats)`);
  const outcome: WorkloadOutcome = plp?.corrupt ? 'corrupt' : (judgement.verdict as WorkloadOutcome);
  return record(q, round, outcome, { judgement, reasons, ...started, ...(plp ? { promptLogprobs: plp } : {}) });
}

/** What the stream said about the server: several tokens per event, and triggers that never fired. */
function streamingNotes(records: readonly WorkloadRecord[]): string[] {
  const out: string[] = [];
  const streamed = records.filter((r) => r.streamed);
  const grouped = streamed.filter((r) => r.streamed!.events < r.streamed!.tokens);
  if (grouped.length > 0) {
    const s = grouped[0].streamed!;
    out.push(`the target streams several tokens per event (${grouped[0].id}: ${s.tokens} tokens in ${s.events} event(s), counted by ${s.countedBy ?? 'token ids'}): start conditions count tokens, not events`);
  }
  const early = records.filter((r) => r.judgement?.notes.some((n) => n.includes('end-of-sequence')));
  if (early.length > 0)
    out.push(`${early.length} generation(s) stopped at the end-of-sequence token before max_tokens (${early[0].id}: ${early[0].judgement!.notes.find((n) => n.includes('end-of-sequence'))}); each was judged on the tokens both sides returned`);
  const started = records.filter((r) => r.started);
  if (started.length > 0)
    out.push(`${started.length} request(s) started without their trigger, because the request they waited on ended first (${started[0].id}: ${started[0].started}); the state they were to meet may not have been reached`);
  return out;
}

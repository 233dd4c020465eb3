/**
 * One probe: the target against a reference server (or a saved golden), prompt by prompt, judged
 * by the oracles and decided by the sequential test.
 *
 *   per prompt:  build the token-id prompt → reference and candidate greedy generations
 *                (concurrently) → if they differ and a reference server exists, the reference
 *                scores the candidate's whole continuation → judgeRequest
 *   per run:     outcomes in prompt order → SequentialTest; stop early once it decides
 *
 * Nothing that fails is dropped: a request whose exchange failed is a `failed` verdict with its
 * errors, it never counts as clean, and the run is INCONCLUSIVE when too many failed.
 */
import { UserError } from '../core/errors.js';
import { DEFAULT_PLAUSIBILITY } from '../oracle/crossscore.js';
import { DEFAULT_MARGIN_POLICY, RunningMargin } from '../oracle/margin.js';
import { summarizePositions } from '../oracle/positions.js';
import { DEFAULT_REPETITION } from '../oracle/repetition.js';
import { DEFAULT_SEQUENTIAL, SequentialTest, tokenRate, type EndpointVerdict } from '../oracle/stats.js';
import type { Generation, ScoredToken } from '../oracle/types.js';
import { checkCapabilities } from './capabilities.js';
import { commonLength } from './early-stop.js';
import { requireForPromptSuites } from './suite-needs.js';
import { failedJudgement, judgeRequest, type RequestJudgement } from '../oracle/verdict.js';
import { ProbeClient, RetryBudget, type Attempt, type CallResult } from './client.js';
import { buildExamples } from './examples.js';
import { runOrdered } from './pool.js';
import { planPrompts, promptTokensFor, type PromptSpec } from './plan.js';
import { generationOf, recordExchange, RECORDING_FORMAT } from './recording.js';
import { ServerApi } from './server-api.js';
import type { SuiteName } from './suites.js';
import type { Endpoint, ProbeConfig, ProbeReport, RequestRecord } from './types.js';

export type { Endpoint, ProbeConfig, ProbeReport, RequestRecord } from './types.js';

interface Fetched {
  spec: PromptSpec;
  promptTokens: number[];
  reference?: Generation;
  candidate?: Generation;
  scores?: ScoredToken[];
  errors: string[];
  attempts: Attempt[];
  referenceResult?: { ok: true; value: Generation } | { ok: false; error: string };
}

function makeApi(e: Endpoint, config: ProbeConfig, budget: RetryBudget, seedOffset: number): ServerApi {
  return new ServerApi(
    new ProbeClient({
      baseUrl: e.url,
      apiKey: e.apiKey,
      budget,
      seed: config.seed + seedOffset,
      ...config.client,
    }),
  );
}

export function minDefined(...xs: (number | undefined)[]): number | undefined {
  const d = xs.filter((x): x is number => x !== undefined);
  return d.length ? Math.min(...d) : undefined;
}

function collect<T>(r: CallResult<T>, errors: string[], attempts: Attempt[]): T | undefined {
  attempts.push(...r.attempts);
  if (r.ok) return r.value;
  errors.push(r.error);
  return undefined;
}

export async function runProbe(config: ProbeConfig): Promise<ProbeReport> {
  if (!config.reference && !config.golden)
    throw new UserError('probe needs something to compare against', {
      hint: 'pass --reference URL (a server you trust) or --golden FILE (a saved run)',
    });
  if (config.reference && config.golden)
    throw new UserError('--reference and --golden are alternatives; pass one');
  if (config.scorer && !config.golden)
    throw new UserError('a scoring server only goes with a golden run', {
      hint: 'with --reference the reference server scores the candidate itself',
    });
  const golden = config.golden?.recording;
  const settings = {
    window: config.window ?? golden?.window,
    pageSize: config.pageSize,
    logprobs: golden?.logprobs ?? config.logprobs,
    seed: golden?.seed ?? config.seed,
  };
  const budget = new RetryBudget(config.retryBudget ?? Math.max(20, 4 * config.requests));
  const target = makeApi(config.target, config, budget, 1);
  const reference = config.reference ? makeApi(config.reference, config, budget, 2) : undefined;
  // who scores a divergent continuation: the reference server, or the golden run's live scorer
  const scorer = reference ?? (config.scorer ? makeApi(config.scorer, config, budget, 2) : undefined);
  const notes: string[] = [...(config.notes ?? [])];
  const errorCounts = new Map<string, number>();
  /** Every failed attempt counts; a final error that is not one of them (a parse error …) counts too. */
  const noteErrors = (attempts: Attempt[], finals: string[]) => {
    for (const a of attempts) errorCounts.set(a.error, (errorCounts.get(a.error) ?? 0) + 1);
    for (const f of finals)
      if (!attempts.some((a) => f.startsWith(a.error))) errorCounts.set(f, (errorCounts.get(f) ?? 0) + 1);
  };

  try {
    let unreachable: string | undefined;
    for (const [name, api] of [
      ['target', target],
      ['reference', reference],
      ['scorer', reference ? undefined : scorer],
    ] as const) {
      if (!api) continue;
      const r = await api.resolveModel();
      noteErrors(r.attempts, r.ok ? [] : [r.error]);
      // no HTTP answer at all (refused, reset, timed out): every request would fail the same way
      if (!r.ok && r.attempts.length > 0 && r.attempts.every((a) => a.status === undefined))
        unreachable ??= `the ${name} at ${api.url} is unreachable (${r.error})`;
      else if (!r.ok)
        notes.push(`${name}: could not list models (${r.error}); requests are sent without a model name`);
    }
    if (golden && target.model && golden.model && golden.model !== target.model)
      notes.push(
        `the golden run was recorded from model "${golden.model}", the target serves "${target.model}"`,
      );
    const tokenizer = reference ?? target;
    if (scorer && !unreachable) await checkSameTokenizer(target, scorer, notes);
    const capabilities = unreachable ? undefined : await askCapabilities(config, target, reference, tokenizer, notes);

    const specs = unreachable
      ? []
      : planPrompts({ ...config, golden }, minDefined(target.maxModelLen, reference?.maxModelLen));
    const frame = { window: settings.window, pageSize: settings.pageSize };
    const sequential = new SequentialTest(config.sequential ?? DEFAULT_SEQUENTIAL);
    const marginPolicy = config.margin ?? DEFAULT_MARGIN_POLICY;
    const margins = new RunningMargin(marginPolicy, settings.window);
    const records: RequestRecord[] = [];
    const goldenExchanges: ReturnType<typeof recordExchange>[] = [];

    const fetchOne = async (index: number, signal: AbortSignal): Promise<Fetched> => {
      const spec = specs[index];
      const errors: string[] = [];
      const attempts: Attempt[] = [];
      const out: Fetched = { spec, promptTokens: spec.tokens ?? [], errors, attempts };
      if (!spec.tokens) {
        const tokens = collect(
          await promptTokensFor(spec, index, settings.seed, config.corpus, tokenizer, signal),
          errors,
          attempts,
        );
        if (!tokens) return out;
        out.promptTokens = tokens;
      }
      const gen = { maxTokens: spec.maxTokens, logprobs: settings.logprobs, seed: settings.seed, requestFields: config.requestFields };
      const goldenGen = golden ? generationOf(golden.exchanges[index]) : undefined;
      const [refResult, candResult] = await Promise.all([
        reference ? reference.generate(out.promptTokens, gen, signal) : Promise.resolve(undefined),
        target.generate(out.promptTokens, gen, signal),
      ]);
      if (refResult) {
        out.referenceResult = refResult.ok
          ? { ok: true, value: refResult.value }
          : { ok: false, error: refResult.error };
        out.reference = collect(refResult, errors, attempts);
      } else if (golden) {
        if (goldenGen) out.reference = goldenGen;
        else
          errors.push(
            `golden exchange ${spec.id} has no generation: ${golden.exchanges[index].error ?? 'recorded as failed'}`,
          );
      }
      out.candidate = collect(candResult, errors, attempts);
      const differ =
        out.reference && out.candidate && out.reference.tokens.some((t, i) => t !== out.candidate!.tokens[i]);
      if (differ && scorer)
        out.scores = collect(
          await scorer.score(
            out.promptTokens,
            out.candidate!.tokens,
            settings.logprobs,
            settings.seed,
            signal,
          ),
          errors,
          attempts,
        );
      return out;
    };

    const commit = (index: number, f: Fetched): boolean => {
      noteErrors(f.attempts, f.errors);
      if (reference && f.promptTokens.length > 0)
        goldenExchanges.push(
          recordExchange(
            f.spec.id,
            f.promptTokens,
            f.spec.maxTokens,
            f.referenceResult ?? { ok: false, error: f.errors.join('; ') || 'not run' },
          ),
        );
      let judgement: RequestJudgement;
      if (f.errors.length > 0 || !f.reference || !f.candidate)
        judgement = failedJudgement(f.errors.length ? f.errors : ['incomplete exchange']);
      else {
        const common = commonLength(f.reference, f.candidate, f.spec.maxTokens);
        const ref = common.reference;
        const cand = common.candidate;
        const margin = margins.next(ref, cand, f.promptTokens.length);
        judgement = judgeRequest({
          reference: ref,
          candidate: cand,
          scores: f.scores,
          promptLength: f.promptTokens.length,
          frame,
          margin,
          thresholds: config.thresholds,
          repetition: config.repetition,
        });
        if (common.note) judgement = { ...judgement, notes: [...judgement.notes, common.note] };
      }
      records.push({
        id: f.spec.id,
        index,
        promptTokens: f.promptTokens,
        maxTokens: f.spec.maxTokens,
        reference: f.reference,
        candidate: f.candidate,
        scores: f.scores,
        judgement,
      });
      const state = sequential.add(
        judgement.verdict === 'failed' ? 'failed' : judgement.verdict === 'corrupt' ? 'corrupt' : 'clean',
        judgement.evidence.strength,
      );
      config.onProgress?.(index + 1, specs.length, state);
      return state.verdict === 'continue' || config.earlyStop === false;
    };

    await runOrdered(specs.length, config.concurrency, fetchOne, commit, config.signal);
    const decided = sequential.current.verdict === 'continue' ? sequential.finish() : sequential.current;
    const final = unreachable ? { ...decided, reason: `${unreachable}; no requests were run` } : decided;
    if (!scorer)
      notes.push(
        'golden run: tokens after each first divergence are not cross-scored (no reference server to ask)',
      );
    if (settings.window === undefined)
      notes.push('no window given: positions are not related to the sliding window');

    const early = records.filter((r) => r.judgement.notes.some((n) => n.includes('end-of-sequence')));
    if (early.length > 0)
      notes.push(`${early.length} generation(s) stopped at the end-of-sequence token before max_tokens (the server does not honour ignore_eos): each was judged on the tokens both sides returned`);
    const judged = records.filter((r) => r.judgement.verdict !== 'failed');
    const corruptTokens = judged.flatMap((r) => r.judgement.corruptTokens);
    const judgedTokens = judged.reduce((n, r) => n + r.judgement.judgedTokens, 0);
    const count = (v: string) => records.filter((r) => r.judgement.verdict === v).length;
    const examples = await buildExamples(
      records.filter((r) => r.judgement.verdict === 'corrupt').slice(0, 3),
      tokenizer,
    );

    return {
      verdict: final.verdict as EndpointVerdict,
      reason: final.reason,
      mode: golden ? 'golden' : 'reference',
      target: { url: target.url, model: target.model },
      reference: golden
        ? { golden: config.golden!.path, model: golden.model, ...(scorer ? { scorer: scorer.url } : {}) }
        : { url: reference!.url, model: reference!.model },
      settings: {
        suite: golden ? (golden.suite as SuiteName) : config.suite,
        window: settings.window,
        pageSize: settings.pageSize,
        requests: specs.length,
        maxTokens: config.maxTokens,
        concurrency: config.concurrency,
        seed: settings.seed,
        logprobs: settings.logprobs,
        margin: marginPolicy,
        thresholds: config.thresholds ?? DEFAULT_PLAUSIBILITY,
        sequential: config.sequential ?? DEFAULT_SEQUENTIAL,
        repetition: config.repetition ?? DEFAULT_REPETITION,
      },
      counts: {
        planned: specs.length,
        judged: judged.length,
        identical: count('identical'),
        benignDrift: count('benign-drift'),
        corrupt: count('corrupt'),
        failed: count('failed'),
        notRun: specs.length - records.length,
      },
      sequential: final,
      tokens: {
        judged: judgedTokens,
        corrupt: corruptTokens.length,
        ...tokenRate(corruptTokens.length, judgedTokens),
      },
      corruptPositions: summarizePositions(corruptTokens),
      errors: [...errorCounts]
        .map(([message, n]) => ({ message, count: n }))
        .sort((a, b) => b.count - a.count),
      notes,
      ...(capabilities ? { capabilities } : {}),
      examples,
      requests: records,
      golden: reference
        ? {
            format: RECORDING_FORMAT,
            version: 1,
            model: reference.model,
            server: reference.url,
            suite: config.suite,
            window: settings.window,
            pageSize: settings.pageSize,
            logprobs: settings.logprobs,
            seed: settings.seed,
            exchanges: goldenExchanges,
          }
        : undefined,
    };
  } finally {
    await target.client.close();
    await scorer?.client.close();
  }
}

/** Two servers with different tokenizers cannot be compared token by token: that is a usage error. */
/**
 * Can each server generate from token ids with logprobs? Asked once before the prompts, so a server
 * that cannot is a usage error naming what it lacks, not a run of failed requests.
 */
async function askCapabilities(config: ProbeConfig, target: ServerApi, reference: ServerApi | undefined, tokenizer: ServerApi, notes: string[]): Promise<ProbeReport['capabilities']> {
  const t = await tokenizer.tokenize(config.corpus.slice(0, 400) || 'The capability check', config.signal);
  if (!t.ok) {
    notes.push(`the capability check was skipped: /tokenize failed (${t.error})`);
    return undefined;
  }
  const o = { prompt: t.value.slice(0, 24), logprobs: config.logprobs, seed: config.seed, signal: config.signal, scope: 'generation' as const };
  const out = {
    target: await checkCapabilities(config.target, target, o),
    ...(reference && config.reference ? { reference: await checkCapabilities(config.reference, reference, o) } : {}),
  };
  requireForPromptSuites(config.suite, {
    target: { url: target.url, report: out.target },
    ...(out.reference ? { reference: { url: reference!.url, report: out.reference } } : {}),
  });
  for (const [who, r] of Object.entries(out))
    for (const c of r.checks.filter((x) => x.support === 'no' && x.name !== 'token-id-generation')) notes.push(`${who}: ${c.name}: ${c.detail}`);
  return out;
}

async function checkSameTokenizer(target: ServerApi, reference: ServerApi, notes: string[]): Promise<void> {
  const probe = 'faultline tokenizer check: naïve café, 1234 — ok';
  const [a, b] = await Promise.all([target.tokenize(probe), reference.tokenize(probe)]);
  if (!a.ok || !b.ok) {
    notes.push("could not compare the two servers' tokenizers (/tokenize failed on one of them)");
    return;
  }
  if (a.value.length !== b.value.length || a.value.some((t, i) => t !== b.value[i]))
    throw new UserError(
      'the target and the reference tokenize the same text differently: they do not serve the same model',
      {
        hint: 'point --reference at a server of the same model (same tokenizer), with only the serving features changed',
      },
    );
}

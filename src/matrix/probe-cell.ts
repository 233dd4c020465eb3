/**
 * The probe library (src/probe) behind the matrix's MatrixProbe contract (cell-probe.ts).
 *
 * The reference server's side of every comparison is recorded once, at the start of a run, as
 * goldens (one per probe round: round 0 and each confirmation of a PASS get their own prompts,
 * from seed + round) and kept in the journal. Each cell is then a golden-mode probe of the cell's
 * server. When a live reference is at hand (a reference URL, or `reference.keep_alive`), it also
 * scores each divergent continuation, so tokens after a first divergence are judged too — without
 * it only the first divergence and repetition can be. CLEAN → pass, CORRUPT → corrupt, anything
 * else (INCONCLUSIVE, too many failed requests, a thrown error) → probe-error, never pass.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { UserError, type SourceLocation } from '../core/errors.js';
import { trialsForZeroEventBound } from '../oracle/binomial.js';
import { recordGolden } from '../probe/record.js';
import type { Recording } from '../probe/recording.js';
import { runProbe, type ProbeConfig, type ProbeReport } from '../probe/run.js';
import { SUITE_NAMES } from '../probe/suites.js';
import { DEFAULT_SEQUENTIAL } from '../oracle/stats.js';
import type { CellProbeContext, MatrixProbe, ProbeResult } from './cell-probe.js';

const DEFAULT_PROMPT_TEXT = fileURLToPath(new URL('../../data/heldout-prose.txt', import.meta.url));

/** The plan's `probe:` mapping (snake_case, as in the YAML). */
export const probeOptionsSchema = z.strictObject({
  suite: z.enum(SUITE_NAMES.filter((s) => s !== 'file') as ['window-crossing', 'short']).default('window-crossing'),
  window: z.number().int().positive().optional().describe("The model's sliding window in tokens (the suites need it)."),
  page_size: z.number().int().positive().default(16),
  requests: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe('Requests per probe round (default: the fewest a PASS at target_rate needs; fewer are refused).'),
  max_tokens: z.number().int().min(1).max(100_000).default(64),
  concurrency: z.number().int().min(1).max(256).default(4),
  seed: z.number().int().min(0).default(0),
  logprobs: z.number().int().min(1).max(20).default(5),
  timeout_s: z.number().positive().default(120),
  early_stop: z.boolean().default(true),
  target_rate: z
    .number()
    .gt(0)
    .lt(1)
    .default(DEFAULT_SEQUENTIAL.targetRate)
    .describe('CLEAN needs the corrupt-request rate bounded below this (a larger one needs fewer clean requests).'),
  prompt_text: z.string().optional().describe('Held-out prose the suites cut prompts from (relative to the plan file).'),
});
export type MatrixProbeOptions = Omit<z.output<typeof probeOptionsSchema>, 'requests'> & { requests: number };

/**
 * Validates the plan's probe options up front, so a typo — or a probe that can never say PASS —
 * fails before any server starts. `at` gives where each key was written (MatrixPlan.probeAt).
 */
export function parseProbeOptions(raw: Record<string, unknown>, planFile: string, at: Record<string, SourceLocation> = {}): MatrixProbeOptions {
  const parsed = probeOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.join('.');
    throw new UserError(`invalid probe options in ${planFile}: probe.${key}: ${issue.message}`, {
      code: 'E_PLAN_PROBE',
      hint: `probe keys: ${Object.keys(probeOptionsSchema.shape).join(', ')}`,
    });
  }
  if (parsed.data.window === undefined)
    throw new UserError(`probe.window is missing in ${planFile}`, {
      code: 'E_PLAN_PROBE',
      hint: "the window-crossing and short suites need the model's sliding window, e.g. probe: {window: 128}",
    });
  const needed = requestsForClean(parsed.data.target_rate);
  const requests = parsed.data.requests ?? needed;
  if (requests < needed)
    throw new UserError(
      `probe.requests is ${requests}, but a PASS at target_rate ${parsed.data.target_rate} needs at least ${needed} clean requests: every cell would end PROBE-ERROR`,
      {
        code: 'E_PLAN_PROBE',
        at: at.requests ?? at.target_rate ?? at[''],
        hint: `set probe.requests to ${needed} or more (or leave it out), or raise probe.target_rate (CLEAN bounds the corrupt-request rate below it at ${pctText(DEFAULT_SEQUENTIAL.confidence)} confidence)`,
      },
    );
  return { ...parsed.data, requests };
}

/** Clean requests in a row the sequential test needs before it says CLEAN (the rule of three, generalized). */
export function requestsForClean(targetRate: number): number {
  return trialsForZeroEventBound(targetRate, 1 - DEFAULT_SEQUENTIAL.confidence);
}

/** The options as the probe runs them (already validated by parseProbeOptions when the plan loaded). */
function withDefaults(raw: Record<string, unknown>): MatrixProbeOptions {
  const o = probeOptionsSchema.parse(raw);
  return { ...o, requests: o.requests ?? requestsForClean(o.target_rate) };
}

const pctText = (x: number): string => `${Math.round(x * 100)}%`;

/** What captureReference returns and the journal keeps: one golden per probe round. */
export interface ReferenceGoldens {
  rounds: Recording[];
}

export interface EngineProbeOptions {
  /** Probe rounds a PASS can need at most (maxPassRounds of plan.confirm): one golden each. */
  rounds: number;
  /** The plan's directory: prompt_text is relative to it. */
  planDir: string;
}

function probeConfig(url: string, o: MatrixProbeOptions, corpus: string, seed: number): Omit<ProbeConfig, 'reference' | 'golden'> {
  return {
    target: { url },
    suite: o.suite,
    corpus,
    window: o.window,
    pageSize: o.page_size,
    requests: o.requests,
    maxTokens: o.max_tokens,
    concurrency: o.concurrency,
    seed,
    logprobs: o.logprobs,
    earlyStop: o.early_stop,
    sequential: { ...DEFAULT_SEQUENTIAL, targetRate: o.target_rate },
    client: { timeouts: { headersMs: o.timeout_s * 1000 } },
  };
}

/** Resolves when the signal aborts (never rejects): lets a probe in flight be abandoned on Ctrl-C. */
function whenAborted(signal: AbortSignal): { promise: Promise<'aborted'>; dispose: () => void } {
  let onAbort = (): void => {};
  const promise = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  // one listener per probe, removed when the probe ends: a long run must not pile them up
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

export function verdictOf(report: ProbeReport): ProbeResult {
  const judged = report.counts.judged;
  const corruptRate = judged > 0 ? report.counts.corrupt / judged : undefined;
  const base = { requests: judged, ...(corruptRate !== undefined ? { corruptRate } : {}) };
  if (report.verdict === 'CLEAN') return { outcome: 'pass', ...base, detail: report.reason };
  if (report.verdict === 'CORRUPT') return { outcome: 'corrupt', ...base, detail: report.reason };
  return { outcome: 'probe-error', ...base, detail: `probe inconclusive: ${report.reason}` };
}

export function createEngineProbe(options: EngineProbeOptions): MatrixProbe {
  let corpus: string | undefined;
  const corpusFor = (o: MatrixProbeOptions): string => {
    if (corpus !== undefined) return corpus;
    const path = o.prompt_text ? resolve(options.planDir, o.prompt_text) : DEFAULT_PROMPT_TEXT;
    try {
      corpus = readFileSync(path, 'utf8');
    } catch (e) {
      throw new UserError(`cannot read the probe's prompt text ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, {
        code: 'E_PLAN_PROBE',
        hint: 'probe.prompt_text is relative to the plan file',
      });
    }
    return corpus;
  };
  return {
    async captureReference(url, raw, signal, request): Promise<ReferenceGoldens> {
      const o = withDefaults(raw);
      const rounds: Recording[] = [];
      for (let round = 0; round < options.rounds; round++) {
        if (signal.aborted) throw new Error('interrupted');
        const rec = await recordGolden({ ...probeConfig(url, o, corpusFor(o), o.seed + round), ...(request ? { requestFields: request } : {}) });
        if (rec.failed > 0)
          throw new Error(`${rec.failed} of the reference's requests failed (round ${round}): ${rec.errors.slice(0, 3).join('; ')}`);
        rounds.push(rec.recording);
      }
      return { rounds };
    },

    async probeCell(url: string, context: CellProbeContext): Promise<ProbeResult> {
      const o = withDefaults(context.options);
      const goldens = (context.reference as ReferenceGoldens | undefined)?.rounds;
      const recording = goldens?.[context.round];
      if (!recording) return { outcome: 'probe-error', detail: `no reference recording for probe round ${context.round}` };
      const probing = runProbe({
        ...probeConfig(url, o, '', recording.seed),
        ...(context.request ? { requestFields: context.request } : {}),
        golden: { path: '(matrix reference)', recording },
        ...(context.scorerUrl ? { scorer: { url: context.scorerUrl } } : {}),
      });
      const abort = whenAborted(context.signal);
      const first = await Promise.race([probing, abort.promise]).finally(abort.dispose);
      if (first === 'aborted') {
        probing.catch(() => {}); // the server is about to stop; its failures no longer matter
        return { outcome: 'probe-error', detail: 'interrupted' };
      }
      return verdictOf(first);
    },
  };
}

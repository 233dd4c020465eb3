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
import { packageRoot } from '../core/package-root.js';
import { trialsForZeroEventBound } from '../oracle/binomial.js';
import { recordGolden } from '../probe/record.js';
import type { Recording } from '../probe/recording.js';
import { runProbe, type ProbeConfig, type ProbeReport } from '../probe/run.js';
import { parseSuiteList, WORKLOAD_SUITE, type AnySuite } from '../probe/suite-list.js';
import type { SuiteName } from '../probe/suites.js';
import { DEFAULT_SEQUENTIAL } from '../oracle/stats.js';
import type { CellProbeContext, MatrixProbe, ProbeResult } from './cell-probe.js';
import { hungDetail, hungRequests } from './hung-requests.js';
import { combineSuiteResults, probeWorkloadCell, untilAborted } from './probe-cell-workload.js';

const DEFAULT_PROMPT_TEXT = fileURLToPath(new URL('../../data/heldout-prose.txt', import.meta.url));

/** The plan's `probe:` mapping (snake_case, as in the YAML). */
export const probeOptionsSchema = z.strictObject({
  suite: z
    .union([z.string(), z.array(z.string()).min(1)])
    .default('window-crossing')
    .describe('window-crossing, short or workload, or several ("workload,window-crossing" or a list): CORRUPT if any suite is, PASS only if all are.'),
  workload_rounds: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(8)
    .describe('Workload suite: rounds of the trace per probe at most (the sequential test usually stops earlier).'),
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
  prompt_text: z.string().optional().describe('Held-out prose the suites cut prompts from (relative to the plan file; {faultline_root} is the faultline package running the plan).'),
});
export type MatrixProbeOptions = Omit<z.output<typeof probeOptionsSchema>, 'requests' | 'suite'> & { requests: number; suites: AnySuite[] };

/** What the plan's reference gives the probe: the workload suite needs a live server to run each request alone on. */
export interface ProbeContextFacts {
  liveReference: boolean;
  requestScope: boolean;
}

/**
 * Validates the plan's probe options up front, so a typo — or a probe that can never say PASS —
 * fails before any server starts. `at` gives where each key was written (MatrixPlan.probeAt);
 * `facts` what the plan's reference offers (the workload suite needs a live one).
 */
export function parseProbeOptions(
  raw: Record<string, unknown>,
  planFile: string,
  at: Record<string, SourceLocation> = {},
  facts: ProbeContextFacts = { liveReference: true, requestScope: false },
): MatrixProbeOptions {
  const parsed = probeOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.join('.');
    throw new UserError(`invalid probe options in ${planFile}: probe.${key}: ${issue.message}`, {
      code: 'E_PLAN_PROBE',
      hint: `probe keys: ${Object.keys(probeOptionsSchema.shape).join(', ')}`,
    });
  }
  const { suite, ...rest } = parsed.data;
  const suites = parseSuiteList(suite, `probe.suite in ${planFile}`, at.suite ?? at['']);
  if (suites.includes('file'))
    throw new UserError(`probe.suite in ${planFile}: the file suite is not available in a matrix plan`, { code: 'E_PLAN_PROBE', at: at.suite, hint: 'use window-crossing, short or workload' });
  if (suites.includes(WORKLOAD_SUITE)) checkWorkloadFacts(planFile, at, facts);
  const promptSuite = suites.some((s) => s !== WORKLOAD_SUITE);
  if (promptSuite && rest.window === undefined)
    throw new UserError(`probe.window is missing in ${planFile}`, {
      code: 'E_PLAN_PROBE',
      hint: "the window-crossing and short suites need the model's sliding window, e.g. probe: {window: 128}",
    });
  const needed = requestsForClean(rest.target_rate);
  const requests = rest.requests ?? needed;
  if (promptSuite && requests < needed)
    throw new UserError(
      `probe.requests is ${requests}, but a PASS at target_rate ${rest.target_rate} needs at least ${needed} clean requests: every cell would end PROBE-ERROR`,
      {
        code: 'E_PLAN_PROBE',
        at: at.requests ?? at.target_rate ?? at[''],
        hint: `set probe.requests to ${needed} or more (or leave it out), or raise probe.target_rate (CLEAN bounds the corrupt-request rate below it at ${pctText(DEFAULT_SEQUENTIAL.confidence)} confidence)`,
      },
    );
  return { ...rest, suites, requests };
}

function checkWorkloadFacts(planFile: string, at: Record<string, SourceLocation>, facts: ProbeContextFacts): void {
  if (!facts.liveReference)
    throw new UserError(`probe.suite in ${planFile}: the workload suite runs each request of its trace alone on a live reference, and this plan's reference is recorded, then stopped`, {
      code: 'E_PLAN_PROBE',
      at: at.suite,
      hint: 'add reference: {keep_alive: true} (or give reference.url, a trusted server that is already running)',
    });
  if (facts.requestScope)
    throw new UserError(`probe.suite in ${planFile}: the workload suite does not carry request-scope factors' fields in its trace`, {
      code: 'E_PLAN_PROBE',
      at: at.suite,
      hint: 'make those factors launch-scope, or probe them with the window-crossing suite',
    });
}

/** Clean requests in a row the sequential test needs before it says CLEAN (the rule of three, generalized). */
export function requestsForClean(targetRate: number): number {
  return trialsForZeroEventBound(targetRate, 1 - DEFAULT_SEQUENTIAL.confidence);
}

/** The options as the probe runs them (already validated by parseProbeOptions when the plan loaded). */
export function withDefaults(raw: Record<string, unknown>): MatrixProbeOptions {
  const { suite, ...o } = probeOptionsSchema.parse(raw);
  return { ...o, suites: parseSuiteList(suite, 'probe.suite'), requests: o.requests ?? requestsForClean(o.target_rate) };
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

/** The settings one probe round sends (seed: the round's), so a caller can send exactly the probe's requests. */
export function probeConfig(url: string, o: MatrixProbeOptions, corpus: string, seed: number): Omit<ProbeConfig, 'reference' | 'golden'> {
  return {
    target: { url },
    suite: promptSuiteOf(o) ?? 'window-crossing',
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

/** `timeoutS`: the probe's deadline per request, named when requests hung. */
export function verdictOf(report: ProbeReport, timeoutS?: number): ProbeResult {
  const judged = report.counts.judged;
  const corruptRate = judged > 0 ? report.counts.corrupt / judged : undefined;
  const base = { requests: judged, ...(corruptRate !== undefined ? { corruptRate } : {}) };
  const hung = hungRequests(report);
  const hangs = hung.length > 0 ? hungDetail(hung, timeoutS) : undefined;
  // a corrupt output is a verdict in itself; a hang anywhere else is never a pass
  if (report.verdict === 'CORRUPT')
    return { outcome: 'corrupt', ...base, detail: hangs ? `${report.reason}; ${hangs}` : report.reason, ...(hangs ? { hung } : {}) };
  if (hangs) return { outcome: 'timeout', ...base, detail: hangs, hung };
  if (report.verdict === 'CLEAN') return { outcome: 'pass', ...base, detail: report.reason };
  return { outcome: 'probe-error', ...base, detail: `probe inconclusive: ${report.reason}` };
}

export function createEngineProbe(options: EngineProbeOptions): MatrixProbe {
  let corpus: string | undefined;
  const corpusFor = (o: MatrixProbeOptions): string => {
    if (corpus !== undefined) return corpus;
    const path = o.prompt_text ? resolve(options.planDir, o.prompt_text.replaceAll('{faultline_root}', packageRoot)) : DEFAULT_PROMPT_TEXT;
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
      // the workload suite records nothing: it runs each request alone on the live reference
      if (promptSuiteOf(o) === undefined) return { rounds };
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
      const parts: { suite: AnySuite; result: ProbeResult }[] = [];
      for (const suite of o.suites) {
        const result =
          suite === WORKLOAD_SUITE ? await probeWorkloadCell(url, context, o, corpusFor(o)) : await probePromptSuite(url, context, o);
        parts.push({ suite, result });
        // a FAIL is trusted, and an interrupted probe ends the cell
        if (result.outcome === 'corrupt' || context.signal.aborted) break;
      }
      return combineSuiteResults(parts, o.suites);
    },
  };
}

/** The window-crossing or short suite of a cell: a golden-mode probe against the recorded reference. */
async function probePromptSuite(url: string, context: CellProbeContext, o: MatrixProbeOptions): Promise<ProbeResult> {
  const goldens = (context.reference as ReferenceGoldens | undefined)?.rounds;
  const recording = goldens?.[context.round];
  if (!recording) return { outcome: 'probe-error', detail: `no reference recording for probe round ${context.round}` };
  let report: ProbeReport | 'aborted';
  try {
    report = await untilAborted(
      runProbe({
        ...probeConfig(url, o, '', recording.seed),
        ...(context.request ? { requestFields: context.request } : {}),
        golden: { path: '(matrix reference)', recording },
        ...(context.scorerUrl ? { scorer: { url: context.scorerUrl } } : {}),
      }),
      context.signal,
    );
  } catch (e) {
    // a cell's server that lacks what the suite needs (capabilities.ts) is that cell's failure, not the run's
    if (e instanceof UserError) return { outcome: 'probe-error', detail: e.message };
    throw e;
  }
  return report === 'aborted' ? { outcome: 'probe-error', detail: 'interrupted' } : verdictOf(report, o.timeout_s);
}

/** The plan's prompt suite (window-crossing or short), if it names one besides the workload suite. */
function promptSuiteOf(o: MatrixProbeOptions): SuiteName | undefined {
  return o.suites.find((s): s is SuiteName => s !== WORKLOAD_SUITE);
}

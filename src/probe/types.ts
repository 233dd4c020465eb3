/**
 * What a probe is asked to do (ProbeConfig) and what it reports (ProbeReport): the contract between
 * run.ts, the CLI, the formatters and whoever reads `--out` JSON (bench/oracle.ts, the matrix).
 */
import type { PlausibilityThresholds } from '../oracle/crossscore.js';
import type { MarginPolicy } from '../oracle/margin.js';
import type { PositionSummary } from '../oracle/positions.js';
import type { RepetitionOptions } from '../oracle/repetition.js';
import type { EndpointVerdict, SequentialPolicy, SequentialState } from '../oracle/stats.js';
import type { Generation, ScoredToken } from '../oracle/types.js';
import type { RequestJudgement } from '../oracle/verdict.js';
import type { CapabilityReport } from './capabilities.js';
import type { ClientOptions } from './client.js';
import type { CorruptExample } from './examples.js';
import type { Recording } from './recording.js';
import type { FilePrompt, SuiteName } from './suites.js';

export interface Endpoint {
  url: string;
  apiKey?: string;
}

export interface ProbeConfig {
  target: Endpoint;
  reference?: Endpoint;
  golden?: { path: string; recording: Recording };
  /**
   * With a golden: a live server of the reference configuration that scores the candidate's
   * continuation after a divergence (what a reference server does in reference mode), so golden
   * runs keep their cross-scoring without regenerating the reference's outputs.
   */
  scorer?: Endpoint;
  suite: SuiteName;
  /** Prompts of the `file` suite. */
  filePrompts?: FilePrompt[];
  /** Held-out text the window-crossing and short suites cut prompts from. */
  corpus: string;
  window?: number;
  pageSize: number;
  requests: number;
  maxTokens: number;
  concurrency: number;
  seed: number;
  /** Top-k logprobs asked for (generation and scoring). */
  logprobs: number;
  /** Request-level fields every generation request carries (a matrix's request-scope factors). */
  requestFields?: Record<string, unknown>;
  earlyStop?: boolean;
  retryBudget?: number;
  client?: Partial<
    Pick<ClientOptions, 'timeouts' | 'maxRetries' | 'backoffBaseMs' | 'backoffMaxMs' | 'sleep'>
  >;
  margin?: MarginPolicy;
  thresholds?: PlausibilityThresholds;
  sequential?: SequentialPolicy;
  repetition?: RepetitionOptions;
  onProgress?: (done: number, total: number, state: Readonly<SequentialState>) => void;
  /** Notes the caller adds to the report (e.g. which options a golden run overrides). */
  notes?: string[];
  /** Stops the run early: requests in flight are cancelled and no new one starts (the report is partial). */
  signal?: AbortSignal;
}

export interface RequestRecord {
  id: string;
  index: number;
  promptTokens: number[];
  maxTokens: number;
  reference?: Generation;
  candidate?: Generation;
  scores?: ScoredToken[];
  judgement: RequestJudgement;
}

export interface ProbeReport {
  verdict: EndpointVerdict;
  reason: string;
  mode: 'reference' | 'golden';
  target: { url: string; model?: string };
  reference: { url?: string; golden?: string; model?: string; scorer?: string };
  settings: {
    suite: SuiteName;
    window?: number;
    pageSize: number;
    requests: number;
    maxTokens: number;
    concurrency: number;
    seed: number;
    logprobs: number;
    margin: MarginPolicy;
    thresholds: PlausibilityThresholds;
    sequential: SequentialPolicy;
    repetition: RepetitionOptions;
  };
  counts: {
    planned: number;
    judged: number;
    identical: number;
    benignDrift: number;
    corrupt: number;
    failed: number;
    notRun: number;
  };
  sequential: SequentialState;
  tokens: { judged: number; corrupt: number; rate: number; upper: number };
  corruptPositions: PositionSummary;
  /** Distinct failure messages (every failed attempt, retried or not) with how often each occurred. */
  errors: { message: string; count: number }[];
  notes: string[];
  /** What the servers answered to the capability check before the prompts (capabilities.ts). */
  capabilities?: { target: CapabilityReport; reference?: CapabilityReport };
  examples: CorruptExample[];
  requests: RequestRecord[];
  /** The reference's generations in golden format (for --save-golden). */
  golden?: Recording;
}

/**
 * The report's data model: plain JSON, built from the inputs by one adapter per input kind
 * (inputs/*.ts) and drawn by html.ts. Everything a chart or table shows is computed here, so the
 * HTML layer only lays out numbers it is given, and tests can check those numbers directly.
 */
import type { AttributionReport } from '../matrix/attribution.js';

export const REPORT_DATA_FORMAT = 'faultline-report-data';

export type InputKind = 'lint' | 'probe' | 'kernel' | 'matrix';

export interface InputRef {
  path: string;
  kind: InputKind;
  /** SHA-256 of the file (of journal.jsonl for a matrix run directory). */
  sha256: string;
}

export interface Provenance {
  faultline: string;
  /** The command line that made the report, as argv joined for reading (not for a shell). */
  command: string;
  generatedAt: string;
  /** faultline's own git revision when it runs from a checkout. */
  gitRevision?: string;
  inputs: InputRef[];
}

export interface LintFindingData {
  hazardId: string;
  alias: string;
  severity: 'error' | 'warning';
  message: string;
  /** file:line:col of the launch. */
  location: string;
  remedies: { change: string; why: string }[];
  references: { title: string; url: string }[];
}

export interface LintData {
  source: string;
  findings: LintFindingData[];
  launches: number;
  notes: string[];
}

export interface ProbeCorruptToken {
  request: string;
  index: number;
  position: number;
  sinceWindow?: number;
  pageOffset?: number;
  class: string;
}

/** Sequence positions [from, to): tokens generated there by judged requests, and how many were corrupt. */
export interface PositionBin {
  from: number;
  to: number;
  generated: number;
  corrupt: number;
}

export interface TextSegment {
  text: string;
  corrupt: boolean;
}

export interface ProbeExampleData {
  id: string;
  /** Corrupt tokens the oracles found in the whole request (the excerpt marks at most the first few). */
  corruptTokens: number;
  firstPosition: number;
  sinceWindow?: number;
  reference: string;
  candidate: TextSegment[];
}

export interface ProbeData {
  source: string;
  verdict: 'CLEAN' | 'CORRUPT' | 'INCONCLUSIVE';
  reason: string;
  target: { url: string; model?: string };
  reference: { url?: string; golden?: string; model?: string };
  suite: string;
  window?: number;
  pageSize: number;
  counts: { planned: number; judged: number; identical: number; benignDrift: number; corrupt: number; failed: number; notRun: number };
  tokens: { judged: number; corrupt: number; rate: number; upper: number };
  corruptTokens: ProbeCorruptToken[];
  byPosition: PositionBin[];
  /** How `generated` in byPosition was counted (from the judged token counts, or from max_tokens). */
  generatedFrom: 'judged tokens' | 'max_tokens';
  byPageOffset: { offset: number; corrupt: number }[];
  /** Worst requests first (most corrupt tokens). */
  examples: ProbeExampleData[];
  notes: string[];
  errors: { message: string; count: number }[];
}

/** `recheckOf` marks a second launch of a configuration (verification); older reports lack it. */
export type MatrixCell = AttributionReport['cells'][number] & { recheckOf?: string };

export interface MatrixData extends Omit<AttributionReport, 'cells'> {
  source: string;
  cells: MatrixCell[];
  /** The cells of the localization and verification phases, in the order the run asked for them. */
  localizationSteps: MatrixCell[];
  /** False when the run was interrupted and could not be replayed to its end. */
  complete: boolean;
  notes: string[];
}

export interface KernelDumpData {
  file: string;
  kernel: string;
  qDtype: string;
  kvDtype: string;
  windowLeft: number;
  qLenPerReq: number;
  pageSize: number;
  numHeads: number;
  requests: number;
  mismatches: number;
  faultyPairs: number;
  maxAbsError: number | string;
  scalesConsistent: boolean;
  logitsFactor: number | string;
  outputFactor: number | string;
  ok: boolean;
}

export interface KernelData {
  source: string;
  ok: boolean;
  tolerance: string;
  dumps: KernelDumpData[];
  controls: { name: string; condition: string; requests: number; failing: number; verdict: string }[];
  hypotheses: { name: string; pairs: number }[];
  /** Which dumps the alignment and (row, head) maps cover (those with errors when there are any). */
  scope: string;
  /** Requests of windowed dumps in scope, by (seq_len − window, seq_len mod page). */
  alignment: { sinceWindow: number; seqModPage: number; requests: number; failing: number }[];
  /** (row, head) pairs of dumps in scope: how many requests had that pair, how many had it wrong. */
  rowHead: { row: number; head: number; pairs: number; failing: number }[];
  pageSizes: number[];
}

export interface SummaryItem {
  kind: InputKind;
  source: string;
  status: 'corrupt' | 'clean' | 'inconclusive' | 'findings';
  headline: string;
  details: string[];
}

export interface ReportData {
  format: typeof REPORT_DATA_FORMAT;
  version: 1;
  title: string;
  provenance: Provenance;
  summary: SummaryItem[];
  matrix: MatrixData[];
  probe: ProbeData[];
  kernel: KernelData[];
  lint: LintData[];
}

/** A matrix attribution report (`faultline matrix --format json`, or RUN_DIR/attribution.json) → MatrixData. */
import { z } from 'zod';
import type { AttributionReport } from '../../matrix/attribution.js';
import { CELL_OUTCOMES } from '../../matrix/executor.js';
import type { MatrixData } from '../data.js';

const levels = z.record(z.string(), z.string());
const outcome = z.enum(CELL_OUTCOMES);

export const attributionSchema = z.object({
  verdict: z.enum(['corruption-found', 'clean', 'inconclusive']),
  plan: z.object({ file: z.string(), hash: z.string(), strength: z.number(), confirm: z.union([z.number(), z.literal('auto')]), missRate: z.number().optional() }),
  factors: z.array(z.object({ name: z.string(), levels: z.array(z.string()), reference: z.string(), description: z.string().optional() })),
  cells: z.array(
    z.object({
      id: z.string(),
      phase: z.string(),
      levels,
      outcome,
      corruptRate: z.number().optional(),
      probeRounds: z.number(),
      recheckOf: z.string().optional(),
      detail: z.string().optional(),
      features: z.array(z.string()).optional(),
    }),
  ),
  interactions: z.array(
    z.object({
      status: z.enum(['verified', 'inconclusive']),
      source: z.string(),
      method: z.string(),
      interaction: levels,
      levels: z
        .record(z.string(), z.object({ failing: z.array(z.string()), safe: z.array(z.string()), impossible: z.array(z.string()), unknown: z.array(z.string()) }))
        .optional(),
      forced: levels,
      minimalCell: z.string().optional(),
      remedies: z.array(z.object({ change: levels, cell: z.string(), recheck: z.string().optional(), outcome })),
      context: z.object({ cell: z.string(), outcome }).optional(),
      reason: z.string().optional(),
    }),
  ),
  notInvolved: z.array(z.object({ factor: z.string(), corruptWith: z.array(z.string()) })),
  explained: z.record(z.string(), z.number()),
  unexamined: z.array(z.string()),
  launchFailures: z.array(z.object({ levels, alternatives: z.array(levels).optional(), cells: z.array(z.string()) })),
  learnedConstraints: z.array(z.object({ levels, cells: z.array(z.string()) })).optional(),
  maskers: z.object({ declared: z.array(z.record(z.string(), z.array(z.string()))), learned: z.array(levels) }).optional(),
  launches: z.object({
    used: z.number(),
    thisRun: z.number(),
    reusedFromJournal: z.number(),
    reference: z.number(),
    coveringRows: z.number(),
    exhaustive: z.number(),
    oneFactorAtATime: z.number(),
  }),
  coverage: z.object({
    strength: z.number(),
    validTuples: z.number(),
    uncoveredByVerdicts: z.number(),
    tested: z.number().optional(),
    untestable: z.object({ count: z.number(), byCause: z.array(z.object({ cause: z.string(), count: z.number() })) }).optional(),
    untested: z.object({ count: z.number(), examples: z.array(levels) }).optional(),
    stoppedBy: z.enum(['complete', 'after-found', 'rounds-exhausted', 'nothing-launchable']).optional(),
  }),
});

export const MATRIX_HINT = 'pass the run directory of `faultline matrix --out DIR`, or its `--format json` output';

export function looksLikeAttribution(v: Record<string, unknown>): boolean {
  return 'cells' in v && 'factors' in v && 'interactions' in v;
}

export function matrixData(source: string, report: AttributionReport, extra: { complete?: boolean; notes?: string[] } = {}): MatrixData {
  return {
    ...report,
    source,
    localizationSteps: report.cells.filter((c) => c.phase === 'localize' || c.phase === 'verify'),
    complete: extra.complete ?? true,
    notes: extra.notes ?? [],
  };
}

/**
 * A matrix run directory → the attribution report. In order of preference:
 *  1. RUN_DIR/attribution.json, when the run wrote one;
 *  2. a replay: the plan recorded in the journal header is loaded and the run is executed again
 *     with the journal as its memory, so every decision is taken from the journaled cells and
 *     nothing is launched (a replay that would need a launch stops: the run was interrupted);
 *  3. the journal alone: the launches and their outcomes, without localization, marked incomplete.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isUserError } from '../../core/errors.js';
import { attributionCell, buildAttribution, type AttributionReport } from '../../matrix/attribution.js';
import type { CellResult } from '../../matrix/cell-result.js';
import { RunInterrupted } from '../../matrix/cells.js';
import type { Executor } from '../../matrix/executor.js';
import { JOURNAL_FILE, parseJournal, type JournalRecord } from '../../matrix/journal.js';
import { loadPlanFile } from '../../matrix/plan-load.js';
import type { MatrixPlan } from '../../matrix/plan-compile.js';
import { runMatrix } from '../../matrix/run.js';
import { attributionSchema, MATRIX_HINT } from './matrix.js';
import { parseJsonText, readInputText, validateInput } from './json-input.js';

/** The file a matrix run may leave next to its journal with the finished attribution report. */
export const ATTRIBUTION_FILE = 'attribution.json';

export interface MatrixRunRead {
  report: AttributionReport;
  complete: boolean;
  notes: string[];
  journalText: string;
}

type RunHeader = Extract<JournalRecord, { type: 'run' }>;

function findPlan(runDir: string, header: RunHeader, cwd: string): string | undefined {
  const candidates = isAbsolute(header.planFile)
    ? [header.planFile]
    : [resolve(cwd, header.planFile), resolve(dirname(runDir), header.planFile), resolve(runDir, header.planFile)];
  return candidates.find((p) => existsSync(p));
}

/** Runs the plan again on the journal; undefined when that would need a launch (an interrupted run). */
async function replay(plan: MatrixPlan, records: readonly JournalRecord[]): Promise<AttributionReport | undefined> {
  const controller = new AbortController();
  const refuse = (): never => {
    controller.abort();
    throw new RunInterrupted();
  };
  const executor: Executor = {
    slots: 1,
    launch: async () => {
      controller.abort();
      return { ok: false, outcome: 'launch-failed', detail: 'replay: this launch is not in the journal' };
    },
  };
  try {
    const run = await runMatrix({
      plan,
      executor,
      probe: { captureReference: async () => refuse(), probeCell: async () => refuse() },
      resumed: records,
      signal: controller.signal,
    });
    return buildAttribution(run);
  } catch (e) {
    if (e instanceof RunInterrupted || controller.signal.aborted) return undefined;
    throw e;
  }
}

/** What the journal alone says: every launch and its outcome, no localization. */
function journalOnly(cells: readonly CellResult[], header: RunHeader, plan: MatrixPlan | undefined): AttributionReport {
  const names = plan ? plan.space.names : [...new Set(cells.flatMap((c) => Object.keys(c.levels)))];
  const factors = names.map((name, f) => ({
    name,
    levels: plan ? [...plan.space.levels[f]] : [...new Set(cells.map((c) => c.levels[name]))],
    reference: plan ? plan.space.levels[f][plan.baseline[f]] : '',
  }));
  return {
    verdict: 'inconclusive',
    plan: { file: header.planFile, hash: header.planHash, strength: plan?.strength ?? 0, confirm: plan ? (plan.confirm.kind === 'auto' ? 'auto' : plan.confirm.reprobes) : 0 },
    factors,
    cells: cells.map(attributionCell),
    interactions: [],
    notInvolved: [],
    explained: {},
    unexamined: [],
    launchFailures: [],
    launches: { used: cells.length, thisRun: 0, reusedFromJournal: cells.length, reference: 0, coveringRows: 0, exhaustive: 0, oneFactorAtATime: 0 },
    coverage: { strength: plan?.strength ?? 0, validTuples: 0, uncoveredByVerdicts: 0 },
  };
}

export async function readMatrixRunDir(runDir: string, cwd: string): Promise<MatrixRunRead> {
  const journalPath = join(runDir, JOURNAL_FILE);
  const journalText = readInputText(journalPath);
  const { records } = parseJournal(journalPath, journalText);
  const header = records[0] as RunHeader;
  const attributionPath = join(runDir, ATTRIBUTION_FILE);
  if (existsSync(attributionPath)) {
    const text = readInputText(attributionPath);
    const report = validateInput(attributionPath, text, parseJsonText(attributionPath, text), attributionSchema, 'matrix attribution report', MATRIX_HINT);
    return { report: report as AttributionReport, complete: true, notes: [], journalText };
  }

  const notes: string[] = [];
  const planPath = findPlan(runDir, header, cwd);
  let plan: MatrixPlan | undefined;
  if (!planPath) notes.push(`the plan ${header.planFile} was not found, so the run could not be replayed: launches and outcomes only`);
  else
    try {
      plan = loadPlanFile(planPath);
      if (plan.hash !== header.planHash) {
        notes.push(`the plan ${planPath} changed since the run (hash differs), so the run could not be replayed: launches and outcomes only`);
        plan = undefined;
      }
    } catch (e) {
      if (!isUserError(e)) throw e;
      notes.push(`the plan ${planPath} no longer loads (${e.message}), so the run could not be replayed: launches and outcomes only`);
    }
  if (plan) {
    const report = await replay(plan, records);
    // the plan as the run named it, not where this process happened to find it
    if (report) return { report: { ...report, plan: { ...report.plan, file: header.planFile } }, complete: true, notes, journalText };
    notes.push(`the run is incomplete (interrupted before the end): continue it with \`faultline matrix --resume ${runDir}\``);
  }
  const cells = records.flatMap((r) => (r.type === 'cell' ? [r.cell] : []));
  return { report: journalOnly(cells, header, plan), complete: false, notes, journalText };
}

/** One palette for every chart and table, so a colour means the same thing everywhere. */
import { CELL_OUTCOMES, outcomeLabel, type CellOutcome } from '../../matrix/executor.js';

export const OUTCOME_LABEL: Record<string, string> = Object.fromEntries(CELL_OUTCOMES.map((o) => [o, outcomeLabel(o)]));

/** Verdicts in their own colours; every way a server failed to run in greys, the scheduler's in blue-greys. */
const COLOR_OF: Record<CellOutcome, string> = {
  pass: '#3a923a',
  corrupt: '#c0392b',
  'launch-failed': '#6b6b6b',
  'probe-error': '#e67e22',
  timeout: '#b8a22c',
  'out-of-memory': '#4d4d4d',
  'image-pull-failed': '#8c8c8c',
  'not-scheduled': '#7f8fa6',
  'node-failed': '#5d6d7e',
  preempted: '#95a5b8',
  cancelled: '#a6acaf',
  'time-limit': '#9a7d0a',
};

export const OUTCOME_COLOR: Record<string, string> = Object.fromEntries(CELL_OUTCOMES.map((o) => [outcomeLabel(o), COLOR_OF[o]]));

/** Outcomes every matrix legend lists; the others appear only where a cell ended that way. */
export const LEGEND_OUTCOMES: readonly string[] = ['pass', 'corrupt', 'launch-failed', 'probe-error', 'timeout'].map(outcomeLabel);

export const LEVEL_COLOR = { reference: '#eeeeee', changed: '#a9cce3' } as const;
export const WITHIN_WINDOW = '#8fa8c8';
export const PAST_WINDOW = '#c0392b';
/** Sequential scheme for error rates (0 = white-ish, 1 = dark red). */
export const RATE_SCHEME = 'reds';
/** A tile with nothing wrong: visibly not the lightest red. */
export const CLEAN_TILE = '#dde7f0';

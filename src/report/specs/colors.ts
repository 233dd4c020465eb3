/** One palette for every chart and table, so a colour means the same thing everywhere. */
export const OUTCOME_LABEL: Record<string, string> = {
  pass: 'PASS',
  corrupt: 'CORRUPT',
  'launch-failed': 'LAUNCH-FAILED',
  'probe-error': 'PROBE-ERROR',
  timeout: 'TIMEOUT',
};

export const OUTCOME_COLOR: Record<string, string> = {
  PASS: '#3a923a',
  CORRUPT: '#c0392b',
  'LAUNCH-FAILED': '#6b6b6b',
  'PROBE-ERROR': '#e67e22',
  TIMEOUT: '#b8a22c',
};

export const LEVEL_COLOR = { reference: '#eeeeee', changed: '#a9cce3' } as const;
export const WITHIN_WINDOW = '#8fa8c8';
export const PAST_WINDOW = '#c0392b';
/** Sequential scheme for error rates (0 = white-ish, 1 = dark red). */
export const RATE_SCHEME = 'reds';
/** A tile with nothing wrong: visibly not the lightest red. */
export const CLEAN_TILE = '#dde7f0';

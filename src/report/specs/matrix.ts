/**
 * The attribution matrix as a heatmap: one row per launch (in run order), one column per factor
 * (reference level pale, any other level tinted and named), then the verdict and the corrupt rate.
 */
import type { ChartSpec } from '../charts.js';
import type { MatrixData } from '../data.js';
import { CLEAN_TILE, LEGEND_OUTCOMES, LEVEL_COLOR, OUTCOME_COLOR, OUTCOME_LABEL, RATE_SCHEME } from './colors.js';

const REFERENCE = 'reference level';
const CHANGED = 'other level';
export const VERDICT_COLUMN = 'verdict';
export const RATE_COLUMN = 'corrupt %';

interface Tile {
  launch: string;
  column: string;
  kind: string;
  label: string;
  rate?: number;
}

export function matrixTiles(m: MatrixData): Tile[] {
  const tiles: Tile[] = [];
  for (const c of m.cells) {
    const launch = `${c.id} · ${c.phase}${c.recheckOf ? ` (repeat of ${c.recheckOf})` : ''}`;
    for (const f of m.factors) {
      const level = c.levels[f.name] ?? '?';
      const changed = level !== f.reference;
      tiles.push({ launch, column: f.name, kind: changed ? CHANGED : REFERENCE, label: changed ? level : '' });
    }
    const verdict = OUTCOME_LABEL[c.outcome] ?? c.outcome;
    tiles.push({ launch, column: VERDICT_COLUMN, kind: verdict, label: verdict });
    if (c.corruptRate !== undefined)
      tiles.push({ launch, column: RATE_COLUMN, kind: 'rate', label: `${Math.round(100 * c.corruptRate)}`, rate: c.corruptRate });
  }
  return tiles;
}

export function matrixChart(m: MatrixData, index: number): ChartSpec {
  const tiles = matrixTiles(m);
  const categorical = tiles.filter((t) => t.column !== RATE_COLUMN).length;
  const rates = tiles.length - categorical;
  const labels = tiles.filter((t) => t.label !== '').length;
  const columns = [...m.factors.map((f) => f.name), VERDICT_COLUMN, RATE_COLUMN];
  // the common outcomes always, a scheduler's only where a cell ended that way (a legend of twelve would drown the chart)
  const seen = new Set(tiles.filter((t) => t.column === VERDICT_COLUMN).map((t) => t.kind));
  const outcomes = Object.keys(OUTCOME_COLOR).filter((o) => LEGEND_OUTCOMES.includes(o) || seen.has(o));
  const x = { field: 'column', type: 'nominal', sort: columns, scale: { domain: columns }, axis: { orient: 'top', labelAngle: -30, title: null } } as const;
  const y = { field: 'launch', type: 'nominal', sort: null, axis: { title: null, labelFontSize: 10, labelLimit: 260 } } as const;
  return {
    id: `matrix-${index + 1}-heatmap`,
    title: 'Attribution matrix',
    caption:
      'One row per launch, in the order the run made them (phase after the id). Pale: the reference level; tinted: another level, named. ' +
      'Verdict: the probe’s decision on that launch (LAUNCH-FAILED: the server did not start; PROBE-ERROR: the probe could not talk to it); corrupt %: share of requests judged corrupt in the deciding probe.',
    expectedMarks: { matrix_cells: categorical, matrix_rate: rates, matrix_labels: labels },
    spec: {
      data: { values: tiles },
      width: { step: 86 },
      height: { step: 15 },
      layer: [
        {
          name: 'matrix_cells',
          transform: [{ filter: `datum.column !== '${RATE_COLUMN}'` }],
          mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
          encoding: {
            x,
            y,
            color: {
              field: 'kind',
              type: 'nominal',
              title: null,
              scale: { domain: [REFERENCE, CHANGED, ...outcomes], range: [LEVEL_COLOR.reference, LEVEL_COLOR.changed, ...outcomes.map((o) => OUTCOME_COLOR[o])] },
              legend: { orient: 'bottom', direction: 'horizontal', columns: 4 },
            },
          },
        },
        {
          name: 'matrix_rate',
          transform: [{ filter: `datum.column === '${RATE_COLUMN}'` }],
          mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
          encoding: {
            x,
            y,
            color: {
              condition: { test: 'datum.rate === 0', value: CLEAN_TILE },
              field: 'rate',
              type: 'quantitative',
              title: 'corrupt share',
              scale: { scheme: RATE_SCHEME, domain: [0, 1] },
              legend: { orient: 'bottom', format: '.0%' },
            },
          },
        },
        {
          name: 'matrix_labels',
          transform: [{ filter: "datum.label !== ''" }],
          mark: { type: 'text', fontSize: 9, limit: 84 },
          encoding: {
            x,
            y,
            text: { field: 'label' },
            color: {
              condition: { test: `indexof(['CORRUPT','LAUNCH-FAILED','PASS'], datum.kind) >= 0 || (datum.rate != null && datum.rate > 0.5)`, value: 'white' },
              value: '#222',
            },
          },
        },
      ],
      resolve: { scale: { color: 'independent' } },
    },
  };
}

/**
 * Probe charts: the share of generated tokens judged implausible by sequence position (bins
 * start at the first position past the window, and a rule marks that boundary), and corrupt
 * tokens by position mod page size (every slot of a page, zeros included).
 */
import type { ChartSpec } from '../charts.js';
import type { ProbeData } from '../data.js';
import { PAST_WINDOW, WITHIN_WINDOW } from './colors.js';

export function positionChart(p: ProbeData, index: number): ChartSpec {
  const window = p.window;
  const bins = p.byPosition.map((b) => ({
    ...b,
    rate: b.corrupt / b.generated,
    side: window === undefined ? 'window unknown' : b.from > window ? 'past the window' : 'within the window',
  }));
  const boundary = window === undefined ? [] : [{ at: window + 1, label: `window ${window} →` }];
  // only the categories present, so the legend names nothing that is not drawn
  const sides = [
    { side: 'within the window', color: WITHIN_WINDOW },
    { side: 'past the window', color: PAST_WINDOW },
    { side: 'window unknown', color: '#888888' },
  ].filter((x) => bins.some((b) => b.side === x.side));
  const x = { field: 'from', type: 'quantitative', title: 'sequence position (seq_len of the step that produced the token)', scale: { zero: false, nice: false } } as const;
  return {
    id: `probe-${index + 1}-positions`,
    title: 'Implausible tokens by sequence position',
    caption:
      `Share of generated tokens the oracle judged implausible, per ${p.byPosition.length ? p.byPosition[0].to - p.byPosition[0].from : 0}-position bin ` +
      `(tokens generated per bin counted from ${p.generatedFrom}). ` +
      'A thick line at 0 marks each bin where tokens were generated. ' +
      (window === undefined ? 'The window was not given to the probe.' : `The rule marks seq_len = window + 1 = ${window + 1}: bars right of it come from sequences longer than the window.`),
    expectedMarks: { probe_positions: bins.length, probe_coverage: bins.length, probe_window: boundary.length },
    spec: {
      width: 640,
      height: 220,
      layer: [
        {
          name: 'probe_positions',
          data: { values: bins },
          mark: { type: 'rect' },
          encoding: {
            x,
            x2: { field: 'to' },
            y: { field: 'rate', type: 'quantitative', title: 'implausible tokens', axis: { format: '.1%' } },
            color: {
              field: 'side',
              type: 'nominal',
              title: null,
              scale: { domain: sides.map((x) => x.side), range: sides.map((x) => x.color) },
              legend: { orient: 'top' },
            },
            stroke: { value: 'white' },
          },
        },
        {
          // a line under every bin where tokens were generated: an empty stretch is "none
          // implausible", not "nothing generated"
          name: 'probe_coverage',
          data: { values: bins },
          mark: { type: 'rule', strokeWidth: 3 },
          encoding: { x, x2: { field: 'to' }, y: { datum: 0 }, color: { field: 'side', type: 'nominal' } },
        },
        {
          name: 'probe_window',
          data: { values: boundary },
          mark: { type: 'rule', strokeDash: [4, 3], color: '#222' },
          encoding: { x: { field: 'at', type: 'quantitative' } },
        },
        {
          data: { values: boundary },
          mark: { type: 'text', align: 'left', dx: 4, dy: -4, baseline: 'top', fontSize: 11, color: '#222' },
          encoding: { x: { field: 'at', type: 'quantitative' }, y: { value: 0 }, text: { field: 'label' } },
        },
      ],
    },
  };
}

export function pageOffsetChart(p: ProbeData, index: number): ChartSpec {
  return {
    id: `probe-${index + 1}-page-offsets`,
    title: 'Corrupt tokens by position mod page',
    caption: `Corrupt tokens by their slot in a KV page of ${p.pageSize} (position mod ${p.pageSize}); a defect that depends on page alignment shows as a few tall bars.`,
    expectedMarks: { probe_page_offsets: p.byPageOffset.length },
    spec: {
      width: Math.min(720, Math.max(260, 24 * p.byPageOffset.length)),
      height: 160,
      data: { values: p.byPageOffset },
      name: 'probe_page_offsets',
      mark: { type: 'bar', color: PAST_WINDOW },
      encoding: {
        x: { field: 'offset', type: 'ordinal', title: `position mod ${p.pageSize}`, axis: { labelAngle: 0 } },
        y: { field: 'corrupt', type: 'quantitative', title: 'corrupt tokens', axis: { tickMinStep: 1, format: 'd' } },
      },
    },
  };
}

/**
 * Kernel error maps: failing requests by (seq_len − window, seq_len mod page), and failing
 * (query row, head) pairs — the two places the reported defect is confined to.
 */
import type { ChartSpec } from '../charts.js';
import type { KernelData } from '../data.js';
import { CLEAN_TILE, RATE_SCHEME } from './colors.js';

export function alignmentChart(k: KernelData, index: number): ChartSpec {
  const values = k.alignment.map((a) => ({ ...a, share: a.failing / a.requests }));
  const xs = new Set(values.map((v) => v.sinceWindow)).size;
  const pages = k.pageSizes.join(', ');
  return {
    id: `kernel-${index + 1}-alignment`,
    title: 'Wrong requests by seq_len − window and seq_len mod page',
    caption:
      `Each tile: requests with that (seq_len − window, seq_len mod page) in ${k.scope}; colour = share with at least one wrong (row, head) pair (pale blue: none wrong)` +
      `${xs > 40 ? '' : ', number = wrong/all'}. Page size${k.pageSizes.length > 1 ? 's' : ''} ${pages}.`,
    expectedMarks: { kernel_alignment: values.length },
    spec: {
      data: { values },
      width: { step: xs > 40 ? 16 : 26 },
      height: { step: 18 },
      layer: [
        {
          name: 'kernel_alignment',
          mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
          encoding: {
            x: { field: 'sinceWindow', type: 'ordinal', title: 'seq_len − window', axis: { labelAngle: xs > 40 ? -90 : 0 } },
            y: { field: 'seqModPage', type: 'ordinal', title: 'seq_len mod page', sort: 'ascending' },
            color: {
              condition: { test: 'datum.failing === 0', value: CLEAN_TILE },
              field: 'share',
              type: 'quantitative',
              title: 'wrong share',
              scale: { scheme: RATE_SCHEME, domain: [0, 1] },
              legend: { format: '.0%' },
            },
          },
        },
        ...(xs > 40
          ? []
          : [
              {
                mark: { type: 'text' as const, fontSize: 9 },
                encoding: {
                  x: { field: 'sinceWindow', type: 'ordinal' as const },
                  y: { field: 'seqModPage', type: 'ordinal' as const },
                  text: { value: { expr: "datum.failing + '/' + datum.requests" } },
                  color: { condition: { test: 'datum.share > 0.5', value: 'white' }, value: '#222' },
                },
              },
            ]),
      ],
    },
  };
}

export function rowHeadChart(k: KernelData, index: number): ChartSpec {
  const values = k.rowHead.map((a) => ({ ...a, share: a.failing / a.pairs }));
  const worst = Math.max(...values.map((v) => v.share), 1e-9);
  return {
    id: `kernel-${index + 1}-row-head`,
    title: 'Wrong (query row, head) pairs',
    caption: `Each tile: one query row of a spec-decode step and one head, over the requests in ${k.scope}; colour = share of requests where that pair is wrong (pale blue: never; the scale ends at the worst pair), number = requests with it wrong.`,
    expectedMarks: { kernel_row_head: values.length },
    spec: {
      data: { values },
      width: { step: 30 },
      height: { step: 22 },
      layer: [
        {
          name: 'kernel_row_head',
          mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
          encoding: {
            x: { field: 'head', type: 'ordinal', title: 'head', axis: { labelAngle: 0 } },
            y: { field: 'row', type: 'ordinal', title: 'query row (position seq_len − q_len + row)' },
            color: {
              condition: { test: 'datum.failing === 0', value: CLEAN_TILE },
              field: 'share',
              type: 'quantitative',
              title: 'wrong share',
              // the defect hits few pairs: scale to the worst pair so differences between pairs show
              scale: { scheme: RATE_SCHEME, domain: [0, worst] },
              legend: { format: worst < 0.1 ? '.1%' : '.0%' },
            },
          },
        },
        {
          mark: { type: 'text', fontSize: 10 },
          encoding: {
            x: { field: 'head', type: 'ordinal' },
            y: { field: 'row', type: 'ordinal' },
            text: { field: 'failing' },
            color: { condition: { test: `datum.share > ${0.5 * worst}`, value: 'white' }, value: '#222' },
          },
        },
      ],
    },
  };
}

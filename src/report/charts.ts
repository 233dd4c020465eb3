/**
 * Charts: Vega-Lite specs compiled to SVG when the report is made, so the page needs no script.
 * Each chart names the mark whose items carry the data (Vega-Lite names a unit's marks
 * `<name>_marks`) and says how many items it must have; tests and the browser check count them.
 * vega is imported on first use: commands that never draw a chart do not pay for loading it.
 */
import type { TopLevelSpec } from 'vega-lite';

export interface ChartSpec {
  /** Unique in a report; also the PNG file name. */
  id: string;
  title: string;
  caption: string;
  spec: TopLevelSpec;
  /**
   * Data marks by name (a unit spec's `name`; its SVG group has class `<name>_marks`) and the
   * number of items each must draw, computed from the data, not from the SVG.
   */
  expectedMarks: Record<string, number>;
}

export interface RenderedChart extends ChartSpec {
  svg: string;
}

/** Shared look: system fonts only (no web fonts), white background, quiet axes. */
export const CHART_CONFIG = {
  font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
  background: 'white',
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', labelColor: '#333', titleColor: '#333' },
  legend: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' },
  view: { stroke: '#ccc' },
} as const;

type Vega = typeof import('vega');
type VegaLite = typeof import('vega-lite');
let libs: Promise<[Vega, VegaLite]> | undefined;
const load = () => (libs ??= Promise.all([import('vega'), import('vega-lite')]));

export async function renderChart(chart: ChartSpec): Promise<RenderedChart> {
  const [vega, vl] = await load();
  const compiled = vl.compile({ ...chart.spec, config: { ...CHART_CONFIG, ...(chart.spec.config ?? {}) } } as TopLevelSpec).spec;
  // inline data only: a loader that refuses every URL keeps rendering offline and local
  const loader = vega.loader();
  loader.load = async (uri: string) => {
    throw new Error(`charts use inline data only (asked for ${uri})`);
  };
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader });
  try {
    const svg = await view.toSVG();
    return { ...chart, svg };
  } finally {
    view.finalize();
  }
}

/** Items of a named mark in an SVG vega wrote (the group's children are leaf elements). */
export function countMarks(svg: string, markName: string): number {
  const open = new RegExp(`<g class="mark-[a-z]+ role-mark ${markName}_marks"[^>]*>`).exec(svg);
  if (!open || open[0].endsWith('/>')) return 0; // absent, or an empty group
  const start = open.index + open[0].length;
  const end = svg.indexOf('</g>', start);
  const body = svg.slice(start, end < 0 ? undefined : end);
  return (body.match(/role="graphics-symbol"/g) ?? []).length;
}

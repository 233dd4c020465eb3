/**
 * `--png DIR`: each chart's SVG (the same one the HTML inlines) rendered to PNG by resvg, at 2×
 * for legibility, with the system fonts. resvg is loaded on first use.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { RenderedChart } from './charts.js';

export async function writeChartPngs(charts: readonly RenderedChart[], dir: string): Promise<string[]> {
  const { Resvg } = await import('@resvg/resvg-js');
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UserError(`cannot create ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'E_REPORT_OUTPUT', hint: 'pass --png a directory you can write' });
  }
  const written: string[] = [];
  for (const chart of charts) {
    const png = new Resvg(chart.svg, {
      fitTo: { mode: 'zoom', value: 2 },
      background: 'white',
      font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    })
      .render()
      .asPng();
    const path = join(dir, `${chart.id}.png`);
    writeFileSync(path, png);
    written.push(path);
  }
  return written;
}

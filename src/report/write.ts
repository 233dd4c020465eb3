/**
 * What commands call to write a report: `faultline report`, and `--html OUT.html` on matrix,
 * probe and kernel verify (they pass the JSON they would print, so the report reads exactly that).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../core/errors.js';
import { assembleReport, buildReportData } from './build.js';
import type { ReportData } from './data.js';
import { renderReportHtml } from './html.js';
import { kernelData, kernelSchema } from './inputs/kernel.js';
import { lintData, lintSchema } from './inputs/lint.js';
import { attributionSchema, matrixData } from './inputs/matrix.js';
import type { LoadedInput } from './inputs/load.js';
import { probeData, probeSchema } from './inputs/probe.js';
import { writeChartPngs } from './png.js';
import type { AttributionReport } from '../matrix/attribution.js';

export interface WriteOptions {
  /** Where to write the HTML. */
  html: string;
  /** Also write each chart as PNG here. */
  pngDir?: string;
  title?: string;
  /** argv of the command, for the provenance (joined with provenance.commandLine). */
  command: string;
  cwd: string;
  now?: Date;
}

export interface WrittenReport {
  data: ReportData;
  htmlPath: string;
  bytes: number;
  pngs: string[];
}

function writeText(path: string, text: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  } catch (e) {
    throw new UserError(`cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'E_REPORT_OUTPUT', hint: 'pass --html a path you can write' });
  }
}

export async function writeReport(data: ReportData, options: WriteOptions): Promise<WrittenReport> {
  const rendered = await renderReportHtml(data);
  writeText(options.html, rendered.html);
  const pngs = options.pngDir ? await writeChartPngs(rendered.charts, options.pngDir) : [];
  return { data, htmlPath: options.html, bytes: Buffer.byteLength(rendered.html), pngs };
}

/** `faultline report INPUT...`: inputs are files or run directories; their kinds are read from their content. */
export async function writeReportFromInputs(inputs: readonly string[], options: WriteOptions): Promise<WrittenReport> {
  return writeReport(await buildReportData(inputs, options), options);
}

/**
 * `--html` on a producing command: `json` is the exact text the command prints with its JSON
 * format (lint / probe summary / kernel verify / matrix attribution), so the report reads what a
 * user would feed `faultline report`; `source` names it in the report. Text that does not match
 * its schema is a faultline bug, so it throws a plain Error rather than a UserError.
 */
export interface ProducedReport {
  kind: 'lint' | 'probe' | 'kernel' | 'matrix';
  json: string;
  /** Matrix only: remarks for the report (e.g. an interrupted run) and whether the run finished. */
  notes?: string[];
  complete?: boolean;
}

export function loadedFromProduced(p: ProducedReport, source: string): LoadedInput {
  const ref = { path: source, kind: p.kind, sha256: createHash('sha256').update(p.json).digest('hex') };
  const check = <T>(r: { success: true; data: T } | { success: false; error: Error }): T => {
    if (!r.success) throw new Error(`--html: the ${p.kind} result does not match the report's input schema: ${r.error.message}`);
    return r.data;
  };
  const value: unknown = JSON.parse(p.json);
  switch (p.kind) {
    case 'lint':
      return { kind: 'lint', ref, data: lintData(source, check(lintSchema.safeParse(value))) };
    case 'probe':
      return { kind: 'probe', ref, data: probeData(source, check(probeSchema.safeParse(value))) };
    case 'kernel':
      return { kind: 'kernel', ref, data: kernelData(source, check(kernelSchema.safeParse(value))) };
    case 'matrix':
      return { kind: 'matrix', ref, data: matrixData(source, check(attributionSchema.safeParse(value)) as AttributionReport, { notes: p.notes, complete: p.complete }) };
  }
}

export async function writeProducedReport(produced: ProducedReport, source: string, options: WriteOptions): Promise<WrittenReport> {
  return writeReport(assembleReport([loadedFromProduced(produced, source)], options), options);
}

/** Inputs → ReportData: load each input (its kind read from its content), then the summary. */
import { VERSION } from '../core/version.js';
import { REPORT_DATA_FORMAT, type KernelData, type LintData, type MatrixData, type ProbeData, type ReportData } from './data.js';
import { loadInput, type LoadedInput } from './inputs/load.js';
import { gitRevision } from './provenance.js';
import { summarize } from './summary.js';

export interface BuildOptions {
  cwd: string;
  title?: string;
  /** The command that made the report, for the provenance line. */
  command: string;
  /** Fixed time for reproducible output (tests); now by default. */
  now?: Date;
}

export function defaultTitle(loaded: readonly LoadedInput[]): string {
  const kinds = [...new Set(loaded.map((l) => l.kind))];
  return `faultline report: ${kinds.join(', ')}`;
}

export function assembleReport(loaded: readonly LoadedInput[], options: BuildOptions): ReportData {
  const of = <K extends LoadedInput['kind']>(kind: K) =>
    loaded.filter((l): l is Extract<LoadedInput, { kind: K }> => l.kind === kind).map((l) => l.data);
  const sections = {
    matrix: of('matrix') as MatrixData[],
    probe: of('probe') as ProbeData[],
    kernel: of('kernel') as KernelData[],
    lint: of('lint') as LintData[],
  };
  const revision = gitRevision();
  return {
    format: REPORT_DATA_FORMAT,
    version: 1,
    title: options.title ?? defaultTitle(loaded),
    provenance: {
      faultline: VERSION,
      command: options.command,
      generatedAt: (options.now ?? new Date()).toISOString(),
      ...(revision ? { gitRevision: revision } : {}),
      inputs: loaded.map((l) => l.ref),
    },
    summary: summarize(sections),
    ...sections,
  };
}

export async function buildReportData(inputs: readonly string[], options: BuildOptions): Promise<ReportData> {
  const loaded: LoadedInput[] = [];
  for (const input of inputs) loaded.push(await loadInput(input, options.cwd));
  return assembleReport(loaded, options);
}

/**
 * One report input → its section data. The kind is read from the content, not the file name:
 * a directory is a matrix run (journal.jsonl inside); a JSON file is a lint, probe, kernel-verify
 * or matrix attribution report, told apart by the keys each of them always has; the schema of
 * the kind found then says precisely what is wrong with a damaged one.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import type { AttributionReport } from '../../matrix/attribution.js';
import { JOURNAL_FILE } from '../../matrix/journal.js';
import type { InputRef, KernelData, LintData, MatrixData, ProbeData } from '../data.js';
import { parseJsonText, readInputText, validateInput } from './json-input.js';
import { KERNEL_HINT, kernelData, kernelSchema, looksLikeKernel } from './kernel.js';
import { LINT_HINT, lintData, lintSchema, looksLikeLint } from './lint.js';
import { attributionSchema, looksLikeAttribution, MATRIX_HINT, matrixData } from './matrix.js';
import { readMatrixRunDir } from './matrix-run.js';
import { looksLikeProbe, PROBE_HINT, probeData, probeSchema } from './probe.js';

export type LoadedInput =
  | { kind: 'lint'; ref: InputRef; data: LintData }
  | { kind: 'probe'; ref: InputRef; data: ProbeData }
  | { kind: 'kernel'; ref: InputRef; data: KernelData }
  | { kind: 'matrix'; ref: InputRef; data: MatrixData };

const ACCEPTED =
  'a report input is a matrix run directory, or the JSON of `faultline lint --format json`, `faultline probe --format json`, `faultline kernel verify --json` or `faultline matrix --format json`';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function loadMatrixDir(path: string, shown: string, cwd: string): Promise<LoadedInput> {
  const run = await readMatrixRunDir(path, cwd);
  return {
    kind: 'matrix',
    ref: { path: shown, kind: 'matrix', sha256: sha256(run.journalText) },
    data: matrixData(shown, run.report, { complete: run.complete, notes: run.notes }),
  };
}

export async function loadInput(input: string, cwd: string): Promise<LoadedInput> {
  const path = resolve(cwd, input);
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    throw new UserError(`cannot read ${input}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'E_REPORT_INPUT', hint: ACCEPTED });
  }
  if (isDir) {
    try {
      statSync(resolve(path, JOURNAL_FILE));
    } catch {
      throw new UserError(`${input} is a directory without ${JOURNAL_FILE}, so it is not a matrix run`, { code: 'E_REPORT_INPUT', hint: ACCEPTED });
    }
    return loadMatrixDir(path, input, cwd);
  }
  // the journal itself stands for its run directory
  if (basename(path) === JOURNAL_FILE) return loadMatrixDir(dirname(path), dirname(input), cwd);

  const text = readInputText(path);
  const value = parseJsonText(input, text);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UserError(`${input} holds JSON, but not an object faultline writes`, { code: 'E_REPORT_INPUT', at: { file: input, line: 1, column: 1 }, hint: ACCEPTED });
  const v = value as Record<string, unknown>;
  const ref = (kind: InputRef['kind']): InputRef => ({ path: input, kind, sha256: sha256(text) });
  if (looksLikeKernel(v))
    return { kind: 'kernel', ref: ref('kernel'), data: kernelData(input, validateInput(input, text, v, kernelSchema, 'kernel verify report', KERNEL_HINT)) };
  if (looksLikeLint(v)) return { kind: 'lint', ref: ref('lint'), data: lintData(input, validateInput(input, text, v, lintSchema, 'lint report', LINT_HINT)) };
  if (looksLikeAttribution(v)) {
    const report = validateInput(input, text, v, attributionSchema, 'matrix attribution report', MATRIX_HINT) as AttributionReport;
    return { kind: 'matrix', ref: ref('matrix'), data: matrixData(input, report) };
  }
  if (looksLikeProbe(v)) return { kind: 'probe', ref: ref('probe'), data: probeData(input, validateInput(input, text, v, probeSchema, 'probe report', PROBE_HINT)) };
  throw new UserError(`cannot tell what ${input} is: it has none of the fields of a faultline report`, {
    code: 'E_REPORT_INPUT',
    at: { file: input, line: 1, column: 1 },
    hint: ACCEPTED,
  });
}

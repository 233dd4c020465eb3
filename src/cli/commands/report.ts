/**
 * `faultline report INPUT... --html OUT.html [--png DIR] [--title T] [--data OUT.json]`: one
 * self-contained HTML page from matrix run directories and lint / probe / kernel-verify / matrix
 * JSON (any mix; each input's kind is read from its content). Exit 0 written, 2 usage or input error.
 */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { UserError } from '../../core/errors.js';
import { commandLine } from '../../report/provenance.js';
import { writeReportFromInputs } from '../../report/write.js';
import type { CliIO } from '../io.js';
import { prepareOutputDir, prepareOutputFile } from '../output-paths.js';
import type { RegisterCommand } from './index.js';

interface ReportOptions {
  html?: string;
  png?: string;
  title?: string;
  data?: string;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

export const registerReport: RegisterCommand = (program: Command, io: CliIO, exit) => {
  program
    .command('report')
    .description('write a self-contained HTML report (charts inline, no network) from faultline results')
    .argument('<inputs...>', 'matrix run directories; JSON from lint --format json, probe --format json, kernel verify --json, matrix --format json')
    .option('--html <file>', 'the HTML file to write')
    .option('--png <dir>', 'also write every chart as a PNG into this directory')
    .option('--title <text>', 'the report title')
    .option('--data <file>', 'also write the report data (plain JSON) to this file')
    .addHelpText(
      'after',
      `
Examples:
  faultline report faultline-matrix-2026-12-01T10-00-00Z --html matrix.html     # a matrix run directory
  faultline report RUN_DIR probe.json verify.json lint.json --html report.html --png charts/
  faultline lint serve.sh --format json > lint.json && faultline report lint.json --html lint.html

Each input's kind is read from its content. Exit status: 0 report written, 2 usage or input error.
`,
    )
    .action(async (inputs: string[], opts: ReportOptions) => {
      if (!opts.html)
        throw new UserError('report needs --html OUT.html', { hint: 'e.g. faultline report run-dir probe.json --html report.html' });
      // every output checked before the inputs are read and the charts rendered
      const html = prepareOutputFile('--html', io.cwd, opts.html);
      const pngDir = opts.png !== undefined ? prepareOutputDir('--png', io.cwd, opts.png) : undefined;
      const dataPath = opts.data !== undefined ? prepareOutputFile('--data', io.cwd, opts.data) : undefined;
      const written = await writeReportFromInputs(inputs, {
        html,
        pngDir,
        title: opts.title,
        command: commandLine(['faultline', ...reportArgv(inputs, opts)]),
        cwd: io.cwd,
      });
      if (dataPath) {
        const path = dataPath;
        try {
          writeFileSync(path, JSON.stringify(written.data, null, 2) + '\n');
        } catch (e) {
          throw new UserError(`cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'E_REPORT_OUTPUT' });
        }
      }
      const sections = written.data.summary.map((s) => `${s.kind} ${s.status}`).join(', ');
      io.out(`wrote ${opts.html} (${kb(written.bytes)}; ${sections})\n`);
      if (written.pngs.length) io.out(`wrote ${written.pngs.length} PNG chart(s) to ${opts.png}\n`);
      exit(0);
    });
};

/** The command as the user gave it (rebuilt from the parsed options, so in-process calls get it too). */
function reportArgv(inputs: string[], o: ReportOptions): string[] {
  return [
    'report',
    ...inputs,
    ...(o.html ? ['--html', o.html] : []),
    ...(o.png ? ['--png', o.png] : []),
    ...(o.title ? ['--title', o.title] : []),
    ...(o.data ? ['--data', o.data] : []),
  ];
}

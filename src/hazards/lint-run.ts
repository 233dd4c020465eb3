/**
 * One lint run, in process: launch files (or one argv) → Deployments → findings → formatted report.
 * The CLI command and bench/lint.ts both call this, so the benchmark measures what users run.
 */
import { UserError } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';
import { deploymentFromArgv, loadDeployments, loadLaunchFiles } from '../deployment/load.js';
import type { Located } from '../core/located.js';
import { lintDeployments } from './evaluate.js';
import type { Finding } from './finding.js';
import { formatJson } from './formatters/json.js';
import { formatSarif } from './formatters/sarif.js';
import { formatText } from './formatters/text.js';
import { hazards } from './index.js';

export const FORMATS = ['text', 'json', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

export interface LintInput {
  files: string[];
  /** A launch given on the command line after `--` (e.g. `vllm serve MODEL …`). */
  argv?: string[];
  modelConfig?: string;
  gpu?: string;
  vllmVersion?: string;
  flashinferVersion?: string;
  cwd: string;
  /** Record flags vLLM does not know as notes only, with no FL000 (--allow-unknown-flags). */
  allowUnknownFlags?: boolean;
  /** `--set NAME=VALUE` / `--env NAME=VALUE`: values for what launch files leave to run time. */
  set?: Record<string, string>;
  setEnv?: Record<string, string>;
}

export interface LintOutcome {
  deployments: Deployment[];
  findings: Finding[];
  /** Remarks about whole files, e.g. a file given on the command line that holds no vLLM launch. */
  fileNotes: Located<string>[];
}

export function runLint(input: LintInput): LintOutcome {
  if (input.files.length === 0 && !input.argv?.length)
    throw new UserError('nothing to lint', {
      code: 'E_USAGE',
      hint: 'give launch files (faultline lint serve.sh deploy.yaml …) or a command after -- (faultline lint -- vllm serve MODEL …)',
    });
  const opts = {
    modelConfig: input.modelConfig,
    gpu: input.gpu,
    vllmVersion: input.vllmVersion,
    flashinferVersion: input.flashinferVersion,
    cwd: input.cwd,
    allowUnknownFlags: input.allowUnknownFlags,
    set: input.set,
    setEnv: input.setEnv,
  };
  const deployments: Deployment[] = [];
  const fileNotes: Located<string>[] = [];
  if (input.files.length) {
    // With no argv launch, a file set without any launch is an input error (never a silent "clean");
    // otherwise each launch-less file is reported as a note, so it is never skipped silently.
    const loaded = loadLaunchFiles(input.files, opts);
    if (loaded.deployments.length === 0 && !input.argv?.length) loadDeployments(input.files, opts); // throws E_NO_LAUNCH
    deployments.push(...loaded.deployments);
    fileNotes.push(...loaded.notes);
    for (const seen of loaded.notLaunches)
      fileNotes.push({ value: `runs ${seen.value}: not checked`, ...(seen.at ? { at: seen.at } : {}) });
    for (const file of loaded.filesWithoutLaunch)
      if (!loaded.notLaunches.some((n) => n.at?.file === file))
        fileNotes.push({
          value: `no vLLM launch found in ${file}: it was not checked`,
          at: { file, line: 1, column: 1 },
        });
  }
  if (input.argv?.length) deployments.push(deploymentFromArgv(input.argv, opts));
  return { deployments, findings: lintDeployments(deployments), fileNotes };
}

export function parseFormat(value: string): Format {
  const f = value.toLowerCase();
  if ((FORMATS as readonly string[]).includes(f)) return f as Format;
  throw new UserError(`unknown output format "${value}"`, {
    code: 'E_USAGE',
    hint: `use one of: ${FORMATS.join(', ')}`,
  });
}

export function formatOutcome(
  outcome: LintOutcome,
  format: Format,
  opts: { color: boolean; env: NodeJS.ProcessEnv },
): string {
  switch (format) {
    case 'json':
      return formatJson(outcome.findings, outcome.deployments, outcome.fileNotes);
    case 'sarif':
      return formatSarif(outcome.findings, { env: opts.env });
    case 'text':
      return formatText(outcome.findings, {
        color: opts.color,
        launches: outcome.deployments.length,
        hazards: hazards.length,
        notes: [...outcome.fileNotes, ...outcome.deployments.flatMap((d) => d.notes)],
      });
  }
}

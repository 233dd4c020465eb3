/**
 * One lint run, in process: launch files (or one argv) → Deployments → findings → formatted report.
 * The CLI command and bench/lint.ts both call this, so the benchmark measures what users run.
 */
import { UserError } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';
import { deploymentFromArgv, loadDeployments } from '../deployment/load.js';
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
}

export interface LintOutcome {
  deployments: Deployment[];
  findings: Finding[];
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
  };
  const deployments: Deployment[] = [];
  if (input.files.length) deployments.push(...loadDeployments(input.files, opts));
  if (input.argv?.length) deployments.push(deploymentFromArgv(input.argv, opts));
  return { deployments, findings: lintDeployments(deployments) };
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
      return formatJson(outcome.findings, outcome.deployments);
    case 'sarif':
      return formatSarif(outcome.findings, { env: opts.env });
    case 'text':
      return formatText(outcome.findings, {
        color: opts.color,
        launches: outcome.deployments.length,
        hazards: hazards.length,
        notes: outcome.deployments.flatMap((d) => d.notes),
      });
  }
}

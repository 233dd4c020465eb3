/**
 * One lint run, in process: launch files (or one argv) → Deployments → findings → formatted report.
 * The CLI command and bench/lint.ts both call this, so the benchmark measures what users run.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';
import { deploymentFromArgv, loadDeployments, loadLaunchFiles } from '../deployment/load.js';
import type { Located } from '../core/located.js';
import { lintDeployments, splitBySignal } from './evaluate.js';
import type { Finding } from './finding.js';
import { formatJson } from './formatters/json.js';
import { formatSarif } from './formatters/sarif.js';
import { formatSuggestionsText } from './formatters/suggestions.js';
import { formatText } from './formatters/text.js';
import { hazards } from './index.js';
import { suggestFixes, type ReadText, type Suggestion } from './suggest/suggest.js';

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
  sglangVersion?: string;
  /** --llama-cpp-version: the llama.cpp build (b6123) or release tag (v0.4.0) a llama-server launch runs. */
  llamaCppVersion?: string;
  cwd: string;
  /** Record flags vLLM does not know as notes only, with no FL000 (--allow-unknown-flags). */
  allowUnknownFlags?: boolean;
  /** List the hazards that only facts not given could make apply as findings (--possible). */
  possible?: boolean;
  /** Also rewrite each launch with each remedy of its findings (--suggest). */
  suggest?: boolean;
  /** `--set NAME=VALUE` / `--env NAME=VALUE`: values for what launch files leave to run time. */
  set?: Record<string, string>;
  setEnv?: Record<string, string>;
}

export interface LintOutcome {
  deployments: Deployment[];
  findings: Finding[];
  /**
   * Possibly-affected hazards the launch turns on no distinguishing feature of and the given facts do
   * not meet: only facts not given (GPU, model config, versions) could make them apply. Not findings:
   * one summary line, no effect on the exit status; empty with `possible`, which lists them as findings.
   */
  dependOnFacts: Finding[];
  /** With `suggest`: per finding (same order), the launch with each of its remedies applied. */
  suggestions?: Suggestion[][];
  /** Remarks about whole files, e.g. a file given on the command line that holds no launch. */
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
    sglangVersion: input.sglangVersion,
    llamaCppVersion: input.llamaCppVersion,
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
    for (const other of loaded.notLaunchFiles)
      fileNotes.push({
        value: `not a launch: ${other.value}; not checked`,
        ...(other.at ? { at: other.at } : {}),
      });
    for (const file of loaded.filesWithoutLaunch)
      if (
        !loaded.notLaunches.some((n) => n.at?.file === file) &&
        !loaded.notLaunchFiles.some((n) => n.at?.file === file)
      )
        fileNotes.push({
          value: `no launch found in ${file}: it was not checked`,
          at: { file, line: 1, column: 1 },
        });
  }
  if (input.argv?.length) deployments.push(deploymentFromArgv(input.argv, opts));
  const all = lintDeployments(deployments);
  const { findings, dependOnFacts } = input.possible
    ? { findings: all, dependOnFacts: [] }
    : splitBySignal(all);
  if (!input.suggest) return { deployments, findings, dependOnFacts, fileNotes };
  const readText = fileReader(input.cwd);
  return {
    deployments,
    findings,
    dependOnFacts,
    fileNotes,
    suggestions: findings.map((f) => suggestFixes([f], readText)),
  };
}

/** Launch files by the paths locations use (as given, relative to cwd), each read once. */
function fileReader(cwd: string): ReadText {
  const cache = new Map<string, string | undefined>();
  return (file) => {
    if (file.startsWith('<')) return undefined;
    if (!cache.has(file)) {
      try {
        cache.set(file, readFileSync(resolve(cwd, file), 'utf8'));
      } catch {
        cache.set(file, undefined); // the suggestion is still printed, only without a region
      }
    }
    return cache.get(file);
  };
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
      return formatJson(
        outcome.findings,
        outcome.deployments,
        outcome.fileNotes,
        outcome.suggestions?.flat(),
        {
          dependOnFacts: outcome.dependOnFacts,
        },
      );
    case 'sarif':
      return formatSarif(outcome.findings, {
        env: opts.env,
        suggestions: outcome.suggestions,
        dependOnFacts: outcome.dependOnFacts,
      });
    case 'text':
      return (
        formatText(outcome.findings, {
          color: opts.color,
          launches: outcome.deployments.length,
          // the hazards that apply to these launches' engines (llama-server has only FL000 so far)
          hazards: outcome.deployments.length
            ? hazards.filter((h) => outcome.deployments.some((d) => h.engines.includes(d.engine))).length
            : hazards.length,
          notes: [...outcome.fileNotes, ...outcome.deployments.flatMap((d) => d.notes)],
          dependOnFacts: outcome.dependOnFacts,
        }) +
        (outcome.suggestions
          ? `\n${formatSuggestionsText(outcome.suggestions.flat(), { color: opts.color })}`
          : '')
      );
  }
}

/**
 * `faultline lint FILE... [options]` and `faultline lint [options] -- vllm serve MODEL …`:
 * is this launch known to corrupt output? Exit 0 no findings, 1 findings, 2 usage or input error.
 * `--explain FLnnn` prints the hazard's documentation page (rendered from its data); `--catalog` lists
 * the hazards; `--suggest` adds each launch rewritten with each remedy of its findings.
 */
import type { Command } from 'commander';
import { UserError } from '../../core/errors.js';
import { formatCatalogJson, formatCatalogText } from '../../hazards/catalog-list.js';
import { renderHazardMarkdown } from '../../hazards/docs.js';
import { findHazard, hazards } from '../../hazards/index.js';
import { formatOutcome, parseFormat, runLint } from '../../hazards/lint-run.js';
import { splitDashDash } from '../dash-dash.js';
import type { CliIO } from '../io.js';
import type { RegisterCommand } from './index.js';

interface LintOptions {
  modelConfig?: string;
  gpu?: string;
  vllmVersion?: string;
  flashinferVersion?: string;
  sglangVersion?: string;
  llamaCppVersion?: string;
  format: string;
  explain?: string;
  allowUnknownFlags?: boolean;
  suggest?: boolean;
  possible?: boolean;
  catalog?: boolean;
  set: string[];
  env: string[];
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** `NAME=VALUE` options into a record; a malformed one is a usage error. */
function assignments(option: string, items: string[]): Record<string, string> | undefined {
  if (items.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of items) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(item);
    if (!m)
      throw new UserError(`${option} ${item}: expected NAME=VALUE`, {
        code: 'E_USAGE',
        hint: `e.g. ${option} TP=8 (repeat ${option} for more)`,
      });
    out[m[1]] = m[2];
  }
  return out;
}

export const registerLint: RegisterCommand = (program: Command, io: CliIO, exit) => {
  program
    .command('lint')
    .description(
      'check vLLM and SGLang launches for known silent-corruption hazards (static, no GPU needed); llama-server and Ollama launches are read too',
    )
    .argument(
      '[files...]',
      'shell scripts, Kubernetes / Helm / KServe / compose manifests, vLLM --config YAML, Dockerfiles, systemd units, llama-swap configs, Modelfiles',
    )
    .option(
      '--model-config <path>',
      "the model's config.json, its checkpoint directory, or its GGUF file (header only)",
    )
    .option('--gpu <gpu>', 'GPU name ("NVIDIA B200"), sm100, or compute capability 10.0')
    .option('--vllm-version <version>', 'vLLM version the launch runs (e.g. 0.23.1rc1.dev843+g04adc8843)')
    .option('--flashinfer-version <version>', 'flashinfer-python version the launch runs')
    .option(
      '--sglang-version <version>',
      'SGLang version an SGLang launch runs (e.g. 0.5.6.post2); picks its flag table',
    )
    .option(
      '--llama-cpp-version <version>',
      'llama.cpp build (b6123) or release tag (v0.4.0) a llama-server launch runs; a release with a flag table makes its FL000 certain',
    )
    .option('--format <format>', 'text, json or sarif', 'text')
    .option(
      '--allow-unknown-flags',
      "record flags, choices and JSON sub-keys faultline's tables lack as notes instead of FL000 warnings (newer releases, forks)",
    )
    .option(
      '--set <NAME=VALUE>',
      'a variable the launch file leaves to run time (shell, Compose), e.g. --set TP=8; repeatable',
      collect,
      [],
    )
    .option(
      '--env <NAME=VALUE>',
      'an environment variable the launch runs with (exported to the server), e.g. --env VLLM_ATTENTION_BACKEND=FLASHINFER; repeatable',
      collect,
      [],
    )
    .option('--explain <hazard>', 'print the documentation of a hazard (FL001 or its alias) and exit')
    .option(
      '--suggest',
      'also print each launch with each remedy of its findings applied, in the file’s own form (shell line or YAML list), with the region it replaces',
    )
    .option(
      '--possible',
      'also list, as findings, the hazards that only facts not given (GPU, model config, versions) could make apply; without it they are one summary line and do not change the exit status',
    )
    .option(
      '--catalog',
      'list every hazard (id, alias, engines, severity, confidence, GPU, version bounds) and exit',
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  faultline lint serve.sh --model-config /models/gemma-4/config.json --gpu B200',
        '  faultline lint --gpu B200 -- vllm serve MODEL --kv-cache-dtype fp8 …   # a launch after --',
        '  faultline lint serve.sh --set TP=8 --set EXTRA_ARGS="--kv-cache-dtype fp8" --vllm-version 0.27.1',
        '  faultline lint deploy.yaml --gpu B200 --suggest                       # the fixed launches',
        '  faultline lint --catalog --format json                                # the hazard catalog as data',
        '  faultline lint --explain FL001',
        '',
        'A hazard is a finding when the launch turns on one of its distinguishing features (a KV dtype, a',
        'speculative method, a backend, a flag) or the facts given meet its conditions. Hazards that only',
        'facts not given could make apply are one summary line ("N hazards depend on facts not given");',
        '--gpu and --model-config decide them, --possible lists them.',
        '',
        'Values known only when a script runs ($TP, $(nproc), $((A*B)), an unset $EXTRA_ARGS) are unknown facts:',
        'hazards that depend on them are "possibly affected"; settle them with --set (as in the third example).',
        "A flag, choice, JSON sub-key or sub-key value the launch's release does not have (or an ambiguous",
        'abbreviation) is reported as FL000, and the rest of the launch is checked with the value as written;',
        'for a release newer than faultline\'s tables, or an unknown version, the finding is "possibly".',
        '',
        'Exit status: 0 no findings, 1 findings, 2 usage or input error.',
      ].join('\n'),
    )
    .action((operands: string[], opts: LintOptions, cmd: Command) => {
      if (opts.catalog) {
        const format = parseFormat(opts.format);
        if (format === 'sarif')
          throw new UserError('--catalog prints text or json', {
            code: 'E_USAGE',
            hint: 'use --format text or --format json',
          });
        io.out(format === 'json' ? formatCatalogJson(hazards) : formatCatalogText(hazards));
        exit(0);
        return;
      }
      if (opts.explain !== undefined) {
        const h = findHazard(opts.explain);
        if (!h)
          throw new UserError(`no hazard "${opts.explain}"`, {
            code: 'E_USAGE',
            hint: `known hazards: ${hazards.map((x) => `${x.id} (${x.alias})`).join(', ')}`,
          });
        io.out(renderHazardMarkdown(h));
        exit(0);
        return;
      }
      const format = parseFormat(opts.format);
      const { before, after } = splitDashDash(cmd, operands);
      const outcome = runLint({
        files: before,
        argv: after,
        modelConfig: opts.modelConfig,
        gpu: opts.gpu,
        vllmVersion: opts.vllmVersion,
        flashinferVersion: opts.flashinferVersion,
        sglangVersion: opts.sglangVersion,
        llamaCppVersion: opts.llamaCppVersion,
        cwd: io.cwd,
        allowUnknownFlags: opts.allowUnknownFlags,
        suggest: opts.suggest,
        possible: opts.possible,
        set: assignments('--set', opts.set),
        setEnv: assignments('--env', opts.env),
      });
      // Colour only when both the CLI's terminal check and stdout itself say TTY: `lint | less` gets plain text.
      const color = format === 'text' && io.isTTY && process.stdout.isTTY === true && !io.env.NO_COLOR;
      io.out(formatOutcome(outcome, format, { color, env: io.env }));
      exit(outcome.findings.length > 0 ? 1 : 0);
    });
};

/**
 * `faultline lint FILE... [options]` and `faultline lint [options] -- vllm serve MODEL …`:
 * is this launch known to corrupt output? Exit 0 no findings, 1 findings, 2 usage or input error.
 * `--explain FLnnn` prints the hazard's documentation page (rendered from its data).
 */
import type { Command } from 'commander';
import { UserError } from '../../core/errors.js';
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
  format: string;
  explain?: string;
  allowUnknownFlags?: boolean;
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
    .description('check vLLM launches for known silent-corruption hazards (static, no GPU needed)')
    .argument(
      '[files...]',
      'shell scripts, Kubernetes / Helm / KServe / compose manifests, vLLM --config YAML',
    )
    .option('--model-config <path>', "the model's config.json, or its checkpoint directory")
    .option('--gpu <gpu>', 'GPU name ("NVIDIA B200"), sm100, or compute capability 10.0')
    .option('--vllm-version <version>', 'vLLM version the launch runs (e.g. 0.23.1rc1.dev843+g04adc8843)')
    .option('--flashinfer-version <version>', 'flashinfer-python version the launch runs')
    .option('--format <format>', 'text, json or sarif', 'text')
    .option(
      '--allow-unknown-flags',
      'record flags vLLM does not know as notes instead of failing (newer vLLM, forks)',
    )
    .option('--set <NAME=VALUE>', 'a variable the launch file leaves to run time (shell, Compose), e.g. --set TP=8; repeatable', collect, [])
    .option('--env <NAME=VALUE>', 'an environment variable the launch runs with (exported to the server), e.g. --env VLLM_ATTENTION_BACKEND=FLASHINFER; repeatable', collect, [])
    .option('--explain <hazard>', 'print the documentation of a hazard (FL001 or its alias) and exit')
    .addHelpText(
      'after',
      '\nA launch can also follow `--`:  faultline lint --gpu B200 -- vllm serve MODEL --kv-cache-dtype fp8 …\n' +
        'Values known only when a script runs ($TP, $(nproc), $((A*B)), an unset $EXTRA_ARGS) are unknown facts:\n' +
        'hazards that depend on them are "possibly affected"; settle them with --set, e.g.\n' +
        '  faultline lint serve.sh --set TP=8 --set EXTRA_ARGS="--kv-cache-dtype fp8" --vllm-version 0.27.1\n' +
        'A flag the launch\'s vLLM release does not have (or an ambiguous abbreviation) is reported as FL000.\n' +
        'Exit status: 0 no findings, 1 findings, 2 usage or input error.',
    )
    .action((operands: string[], opts: LintOptions, cmd: Command) => {
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
        cwd: io.cwd,
        allowUnknownFlags: opts.allowUnknownFlags,
        set: assignments('--set', opts.set),
        setEnv: assignments('--env', opts.env),
      });
      // Colour only when both the CLI's terminal check and stdout itself say TTY: `lint | less` gets plain text.
      const color = format === 'text' && io.isTTY && process.stdout.isTTY === true && !io.env.NO_COLOR;
      io.out(formatOutcome(outcome, format, { color, env: io.env }));
      exit(outcome.findings.length > 0 ? 1 : 0);
    });
};

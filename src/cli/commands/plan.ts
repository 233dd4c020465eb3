/**
 * `faultline plan LAUNCH_FILE [--model-config …] [--gpu …] [--target vllm|engine] [--only F,…]`:
 * a matrix plan from a real launch, on stdout (or --out FILE). No YAML to write by hand to ask
 * "which combination of this launch's features corrupts?". `faultline matrix --from LAUNCH_FILE`
 * takes the same options (addLaunchPlanOptions) and runs the plan without a file.
 */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { parseOnly, parseTarget, planTextFromFiles } from '../../plan/plan-from-file.js';
import type { RegisterCommand } from './index.js';

/** The options that pick and shape the launch a plan is made from. */
export interface LaunchPlanOptions {
  modelConfig?: string;
  gpu?: string;
  vllmVersion?: string;
  target?: string;
  only?: string;
  launch?: string;
}

const OPTION_FLAGS: [keyof LaunchPlanOptions, string][] = [
  ['modelConfig', '--model-config'],
  ['gpu', '--gpu'],
  ['vllmVersion', '--vllm-version'],
  ['target', '--target'],
  ['only', '--only'],
  ['launch', '--launch'],
];

export function addLaunchPlanOptions(command: Command): Command {
  return command
    .option('--model-config <path>', "the model's config.json or checkpoint directory (the probe's window comes from it)")
    .option('--gpu <gpu>', 'GPU name ("NVIDIA B200"), sm100, or compute capability 10.0')
    .option('--vllm-version <version>', 'vLLM version the launch runs')
    .option(
      '--target <target>',
      "vllm: the launch's own command (default for vLLM / SGLang); engine: the same flags on faultline's engine, or for llama-server on its llama.cpp runtime with tiny-swa (CPU; default for llama-server); llama.cpp: the launch's own llama-server",
    )
    .option('--only <factors>', 'keep only these factors, comma-separated (e.g. kv_cache,speculative,q_quantization)')
    .option('--launch <n>', 'which launch, when the files hold several (1-based)');
}

function launchIndex(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new UserError(`--launch ${JSON.stringify(value)} must be a launch number from 1`, { code: 'E_USAGE', hint: 'e.g. --launch 2 for the second launch in the files' });
  return Number(value);
}

/** The plan's YAML text for the launch in `files` (deterministic: the same inputs give the same text). */
export function launchPlanText(files: string[], opts: LaunchPlanOptions, cwd: string): string {
  const launch = launchIndex(opts.launch);
  return planTextFromFiles({
    files,
    cwd,
    modelConfig: opts.modelConfig,
    gpu: opts.gpu,
    vllmVersion: opts.vllmVersion,
    target: parseTarget(opts.target),
    only: parseOnly(opts.only),
    ...(launch !== undefined ? { launch } : {}),
  });
}

/** The words that make the same plan again (for "continue with" hints and provenance). */
export function launchPlanArgs(file: string, opts: LaunchPlanOptions): string[] {
  return ['--from', file, ...OPTION_FLAGS.flatMap(([key, flag]) => (opts[key] !== undefined && !(key === 'target' && opts.target === 'vllm') ? [flag, String(opts[key])] : []))];
}

export const registerPlan: RegisterCommand = (program: Command, io, exit) => {
  addLaunchPlanOptions(
    program
      .command('plan')
      .description('write a matrix plan for a real launch: a factor per feature it turns on, the reference at every safe level')
      .argument('<files...>', 'the launch: shell script, Kubernetes / Helm / KServe / compose manifest, vLLM --config YAML (what lint reads)'),
  )
    .option('--out <file>', 'write the plan there instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  faultline plan serve.sh --model-config config.json --gpu B200 > plan.yaml && faultline matrix plan.yaml
  faultline plan examples/seed-b200/serve.sh --model-config examples/seed-b200/config.json --gpu B200 --target engine
  faultline matrix --from serve.sh --model-config config.json --gpu B200     # plan and run in one go
  faultline plan llama-server.service                        # llama.cpp runtime, tiny-swa, on this CPU
  faultline plan llama-server.service --target llama.cpp     # the launch's own llama-server and model

A factor is a feature the launch turns on off its safe level: the KV dtype, speculative decoding
(its depth, and one draft token), FlashInfer's query quantization, the attention backend, prefix
caching, chunked prefill, CUDA graphs, tensor / pipeline / data parallelism, async scheduling; the
page size is a choice. Each factor's comment says why it is there (the hazards whose conditions
mention it). --target engine runs the same flags on faultline's CPU engine (flags it does not
implement are left out and named in the header).

llama-server launches: a factor per feature it turns on (a quantized K / V cache, flash attention,
--swa-full, --parallel > 1, context shift, a draft model or spec type, prompt-cache reuse,
--cache-reuse, --batch-size), the plain setting the reference's. --target engine (the default) runs
each cell on faultline's llama.cpp runtime with tiny-swa and one sequence in the reference (options
the runtime lacks are left out, each named in the header with why); --target llama.cpp runs the
launch's own llama-server and model. Ollama launches are refused (their runner is not llama-server).
Exit status: 0 plan written, 2 usage or input error (or a launch with nothing to vary).
`,
    )
    .action((files: string[], opts: LaunchPlanOptions & { out?: string }) => {
      const text = launchPlanText(files, opts, io.cwd);
      if (opts.out) writeFileSync(resolve(io.cwd, opts.out), text);
      else io.out(text);
      exit(0);
    });
};

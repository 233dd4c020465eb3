/**
 * `faultline plan LAUNCH_FILE [--model-config …] [--gpu …] [--target vllm|engine] [--only F,…]`:
 * a matrix plan from a real launch, on stdout (or --out FILE). No YAML to write by hand to ask
 * "which combination of this launch's features corrupts?".
 */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOnly, parseTarget, planTextFromFiles } from '../../plan/plan-from-file.js';
import type { RegisterCommand } from './index.js';

interface PlanOptions {
  modelConfig?: string;
  gpu?: string;
  vllmVersion?: string;
  target: string;
  only?: string;
  launch?: string;
  out?: string;
}

export const registerPlan: RegisterCommand = (program: Command, io, exit) => {
  program
    .command('plan')
    .description('write a matrix plan for a real launch: a factor per feature it turns on, the reference at every safe level')
    .argument('<files...>', 'the launch: shell script, Kubernetes / Helm / KServe / compose manifest, vLLM --config YAML (what lint reads)')
    .option('--model-config <path>', "the model's config.json or checkpoint directory (the probe's window comes from it)")
    .option('--gpu <gpu>', 'GPU name ("NVIDIA B200"), sm100, or compute capability 10.0')
    .option('--vllm-version <version>', 'vLLM version the launch runs')
    .option('--target <target>', "vllm: the launch's own command; engine: the same flags on faultline's engine (CPU)", 'vllm')
    .option('--only <factors>', 'keep only these factors, comma-separated (e.g. kv_cache,speculative,q_quantization)')
    .option('--launch <n>', 'which launch, when the files hold several (1-based)')
    .option('--out <file>', 'write the plan there instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  faultline plan serve.sh --model-config config.json --gpu B200 > plan.yaml && faultline matrix plan.yaml
  faultline plan examples/seed-b200/serve.sh --model-config examples/seed-b200/config.json --gpu B200 --target engine
  faultline matrix --from serve.sh --model-config config.json --gpu B200     # plan and run in one go
Each factor's comment says why it is there (the hazard conditions that mention it).
Exit status: 0 plan written, 2 usage or input error (or a launch with nothing to vary).
`,
    )
    .action((files: string[], opts: PlanOptions) => {
      const text = planTextFromFiles({
        files,
        cwd: io.cwd,
        modelConfig: opts.modelConfig,
        gpu: opts.gpu,
        vllmVersion: opts.vllmVersion,
        target: parseTarget(opts.target),
        only: parseOnly(opts.only),
        ...(opts.launch !== undefined ? { launch: Number(opts.launch) } : {}),
      });
      if (opts.out) writeFileSync(resolve(io.cwd, opts.out), text);
      else io.out(text);
      exit(0);
    });
};

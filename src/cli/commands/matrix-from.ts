/**
 * Where `faultline matrix` gets its plan: a plan file, or `--from LAUNCH_FILE`, which makes the
 * plan from a real launch the way `faultline plan` does (same options) and runs it without a file.
 * The generated text is deterministic, so `--from … --resume RUN_DIR` finds the same plan hash;
 * a new run also keeps the text as RUN_DIR/plan.yaml.
 */
import { dirname, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import type { MatrixPlan } from '../../matrix/plan-compile.js';
import { loadPlanFile, parsePlan } from '../../matrix/plan-load.js';
import { launchPlanArgs, launchPlanText, type LaunchPlanOptions } from './plan.js';

export interface PlanSource {
  plan: MatrixPlan;
  /** How the plan is named in messages and the journal. */
  label: string;
  /** The words after `faultline matrix` that give the same plan again. */
  args: string[];
  /** What the plan's relative paths (launch.cwd, probe files) are relative to. */
  dir: string;
  /** The generated text (--from only). */
  text?: string;
}

export const GENERATED_PLAN_FILE = 'plan.yaml';

export function planSource(planArg: string | undefined, opts: Partial<LaunchPlanOptions> & { from?: string }, cwd: string): PlanSource {
  if (opts.from !== undefined) {
    if (planArg !== undefined)
      throw new UserError(`give a plan file or --from LAUNCH_FILE, not both (${planArg} and --from ${opts.from})`, {
        code: 'E_USAGE',
        hint: 'faultline matrix PLAN.yaml, or faultline matrix --from serve.sh --model-config config.json --gpu B200',
      });
    const options: LaunchPlanOptions = { ...opts };
    const text = launchPlanText([opts.from], options, cwd);
    const label = `the plan of ${opts.from}`;
    return { plan: parsePlan(label, text), label, args: launchPlanArgs(opts.from, options), dir: cwd, text };
  }
  const shaping = (['modelConfig', 'gpu', 'vllmVersion', 'only', 'launch'] as const).filter((k) => opts[k] !== undefined);
  if (shaping.length || (opts.target !== undefined && opts.target !== 'vllm'))
    throw new UserError(`${[...shaping.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`), ...(opts.target !== undefined && opts.target !== 'vllm' ? ['--target'] : [])].join(', ')} only ${shaping.length + (opts.target !== undefined && opts.target !== 'vllm' ? 1 : 0) === 1 ? 'shapes' : 'shape'} a plan made from a launch`, {
      code: 'E_USAGE',
      hint: 'use them with --from LAUNCH_FILE (or with faultline plan); a plan file already says everything',
    });
  if (planArg === undefined)
    throw new UserError('matrix needs a plan file', {
      hint: 'faultline matrix PLAN.yaml (see examples/*/matrix.yaml), faultline matrix --from LAUNCH_FILE, or --cleanup RUN_DIR',
    });
  const planFile = resolve(cwd, planArg);
  return { plan: loadPlanFile(planFile), label: planArg, args: [planArg], dir: dirname(planFile) };
}

/**
 * `faultline plan` and `faultline matrix --from`: read a launch the way lint does (any source lint
 * reads, resolved by deployment/load.ts), pick the launch, and generate the plan's YAML text.
 * Deterministic: the same launch and options give the same text, so a run started with `--from`
 * resumes with it.
 */
import { join } from 'node:path';
import { UserError, formatLocation } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';
import { deploymentFromArgv, loadDeployments } from '../deployment/load.js';
import { buildPlanFromLaunch } from './build-plan.js';
import type { Target } from './features.js';
import { renderPlan } from './render-plan.js';

export interface PlanFromFileOptions {
  files: string[];
  cwd: string;
  modelConfig?: string;
  gpu?: string;
  vllmVersion?: string;
  target: Target;
  only?: string[];
  /** Which launch when the files hold several (1-based). */
  launch?: number;
}

export const TARGETS: readonly Target[] = ['vllm', 'engine'];

export function parseTarget(value: string): Target {
  if (!(TARGETS as readonly string[]).includes(value)) throw new UserError(`--target ${value}: use ${TARGETS.join(' or ')}`, { code: 'E_USAGE' });
  return value as Target;
}

export function parseOnly(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new UserError('--only needs factor names, e.g. --only kv_cache,speculative', { code: 'E_USAGE' });
  return names;
}

/** The window of the engine's own model (the engine target runs tiny-swa, not the launch's model). */
function engineWindow(cwd: string): number | undefined {
  const dir = join(packageRoot, 'models/tiny-swa');
  return deploymentFromArgv(['vllm', 'serve', dir], { cwd, modelConfig: join(dir, 'config.json') }).modelFacts?.window;
}

export function planTextFromFiles(o: PlanFromFileOptions): string {
  if (o.files.length === 0) throw new UserError('name the launch file to plan for', { code: 'E_USAGE', hint: 'e.g. faultline plan serve.sh --model-config config.json --gpu B200' });
  const deployments = loadDeployments(o.files, { cwd: o.cwd, modelConfig: o.modelConfig, gpu: o.gpu, vllmVersion: o.vllmVersion });
  if (deployments.length > 1 && o.launch === undefined)
    throw new UserError(`${o.files.join(', ')} hold ${deployments.length} launches`, {
      code: 'E_USAGE',
      hint: `choose one with --launch N: ${deployments.map((d, i) => `${i + 1}: ${d.at ? formatLocation(d.at) : d.source.file}`).join('; ')}`,
    });
  const index = (o.launch ?? 1) - 1;
  const d = deployments[index];
  if (!d) throw new UserError(`--launch ${o.launch}: there are ${deployments.length} launches`, { code: 'E_USAGE' });
  const source = d.at ? formatLocation(d.at) : d.source.file;
  if (d.engine === 'llama.cpp' || d.engine === 'ollama')
    throw new UserError(`plans are built for vLLM and SGLang launches; this one runs ${d.engine === 'ollama' ? 'Ollama' : "llama.cpp's llama-server"}`, {
      code: 'E_USAGE',
      hint: 'faultline lint reads it; a matrix plan for it is not generated yet (write one by hand: examples/llama-cpp/ has one)',
      ...(d.at ? { at: d.at } : {}),
    });
  return renderPlan(
    buildPlanFromLaunch(d, {
      target: o.target,
      ...(o.only ? { only: o.only } : {}),
      source,
      ...(o.target === 'engine' ? { engineWindow: engineWindow(o.cwd) } : {}),
    }),
  );
}

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
import { buildLlamaCppPlan } from './llama-cpp-plan.js';
import { renderPlan } from './render-plan.js';

/** `--target`: vllm (the launch's own vLLM / SGLang command), engine (faultline's engine or llama.cpp runtime), llama.cpp (the launch's own llama-server). */
export type PlanTarget = Target | 'llama.cpp';

export interface PlanFromFileOptions {
  files: string[];
  cwd: string;
  modelConfig?: string;
  gpu?: string;
  vllmVersion?: string;
  /** Absent: vllm for vLLM and SGLang launches, engine for llama-server ones. */
  target?: PlanTarget;
  only?: string[];
  /** Which launch when the files hold several (1-based). */
  launch?: number;
}

export const TARGETS: readonly PlanTarget[] = ['vllm', 'engine', 'llama.cpp'];

export function parseTarget(value: string | undefined): PlanTarget | undefined {
  if (value === undefined) return undefined;
  if (!(TARGETS as readonly string[]).includes(value)) throw new UserError(`--target ${value}: use ${TARGETS.join(', ')}`, { code: 'E_USAGE' });
  return value as PlanTarget;
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
  if (d.engine === 'ollama')
    throw new UserError('plans are built for vLLM, SGLang and llama-server launches; this one runs Ollama', {
      code: 'E_USAGE',
      hint:
        "Ollama's runner is not llama-server (its settings are server-wide OLLAMA_* variables and each model's Modelfile, and a cell would need the model pulled into its own server), so faultline does not map it yet; " +
        'write the same features as a llama-server launch (OLLAMA_KV_CACHE_TYPE → -ctk/-ctv, OLLAMA_FLASH_ATTENTION → -fa, OLLAMA_NUM_PARALLEL → -np) and plan that, or run examples/llama-cpp/matrix.yaml',
      ...(d.at ? { at: d.at } : {}),
    });
  if (d.engine === 'llama.cpp') {
    const target = o.target ?? 'engine';
    if (target === 'vllm')
      throw new UserError("--target vllm: this launch runs llama.cpp's llama-server, not vLLM", {
        code: 'E_USAGE',
        hint: "use --target engine (faultline's llama.cpp runtime on tiny-swa, the default) or --target llama.cpp (the launch's own llama-server)",
        ...(d.at ? { at: d.at } : {}),
      });
    return renderPlan(
      buildLlamaCppPlan(d, {
        target,
        ...(o.only ? { only: o.only } : {}),
        source,
        ...(target === 'engine' ? { engineWindow: engineWindow(o.cwd) } : {}),
      }),
    );
  }
  const target = o.target ?? 'vllm';
  if (target === 'llama.cpp')
    throw new UserError(`--target llama.cpp is for llama-server launches; this one runs ${d.engine === 'sglang' ? 'SGLang' : 'vLLM'}`, {
      code: 'E_USAGE',
      hint: "use --target vllm (the launch's own command, the default) or --target engine (faultline's engine)",
      ...(d.at ? { at: d.at } : {}),
    });
  return renderPlan(
    buildPlanFromLaunch(d, {
      target,
      ...(o.only ? { only: o.only } : {}),
      source,
      ...(target === 'engine' ? { engineWindow: engineWindow(o.cwd) } : {}),
    }),
  );
}

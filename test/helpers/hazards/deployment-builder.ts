/**
 * Hand-built Deployments for hazard unit tests: plain options in, a Deployment out, with every
 * argument located at its own line of a pretend launch file so tests can check where findings point.
 * Used only by tests (the catalog never imports it).
 */
import type { Located } from '../../../src/core/located.js';
import type { Deployment, LayerKind, ModelFacts } from '../../../src/deployment/deployment.js';

export const TEST_FILE = 'launch.sh';

export interface BuildOptions {
  model?: string;
  /** dest → value; insertion order decides the line (first arg on line 2). */
  args?: Record<string, unknown>;
  env?: Record<string, string>;
  gpu?: { name?: string; sm: number };
  modelFacts?: ModelFacts;
  versions?: { vllm?: string; flashinfer?: string };
}

export function buildDeployment(o: BuildOptions): Deployment {
  const args = new Map<string, Located<unknown>>();
  let line = 2;
  for (const [k, v] of Object.entries(o.args ?? {}))
    args.set(k, { value: v, at: { file: TEST_FILE, line: line++, column: 3 } });
  const env = new Map<string, Located<string>>();
  for (const [k, v] of Object.entries(o.env ?? {}))
    env.set(k, { value: v, at: { file: TEST_FILE, line: 100, column: 8 } });
  const d: Deployment = {
    source: { file: TEST_FILE, kind: 'shell' },
    engine: 'vllm',
    at: { file: TEST_FILE, line: 1, column: 1 },
    model: { value: o.model ?? 'org/model', at: { file: TEST_FILE, line: 1, column: 12 } },
    args,
    env,
    versions: {},
    notes: [],
  };
  if (o.modelFacts) d.modelFacts = o.modelFacts;
  if (o.gpu) d.gpu = { value: o.gpu, at: { file: '<--gpu>', line: 1, column: 1 } };
  if (o.versions?.vllm)
    d.versions.vllm = { value: o.versions.vllm, at: { file: '<--vllm-version>', line: 1, column: 1 } };
  if (o.versions?.flashinfer)
    d.versions.flashinfer = {
      value: o.versions.flashinfer,
      at: { file: '<--flashinfer-version>', line: 1, column: 1 },
    };
  return d;
}

/** Returns new options with args changed; a value of undefined removes the arg. */
export function withArgs(o: BuildOptions, changes: Record<string, unknown>): BuildOptions {
  const args: Record<string, unknown> = { ...o.args };
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) delete args[k];
    else args[k] = v;
  }
  return { ...o, args };
}

/** Changes one key inside a JSON-valued arg (undefined removes it; an emptied object removes the arg). */
export function withSubArg(o: BuildOptions, dest: string, key: string, value: unknown): BuildOptions {
  const current = (o.args?.[dest] as Record<string, unknown> | undefined) ?? {};
  const next: Record<string, unknown> = { ...current };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return withArgs(o, { [dest]: Object.keys(next).length ? next : undefined });
}

export function layers(total: number, fullEvery: number): LayerKind[] {
  return Array.from({ length: total }, (_, i) => ((i + 1) % fullEvery === 0 ? 'full' : 'sliding'));
}

/** gemma-4-31B-it-NVFP4 as its config.json describes it: 60 layers, 50 sliding (window 1024), FP8 KV by checkpoint. */
export function gemma4NvfpFacts(): ModelFacts {
  return {
    source: 'config.json',
    modelType: 'gemma4_text',
    layers: layers(60, 6),
    window: 1024,
    kvDtypeFromCheckpoint: 'fp8_e4m3',
    kvDtypeEvidence: 'hf_quant_config.json: kv_cache_quant_algo "FP8"',
    notes: [],
  };
}

export function denseFacts(): ModelFacts {
  return { source: 'config.json', modelType: 'llama', layers: Array<LayerKind>(32).fill('full'), notes: [] };
}

export const B200 = { name: 'NVIDIA B200', sm: 100 };
export const B300 = { name: 'NVIDIA B300 SXM6 AC', sm: 103 };
export const H100 = { name: 'NVIDIA H100 80GB HBM3', sm: 90 };
export const RTX_PRO_6000 = { name: 'NVIDIA RTX PRO 6000 Blackwell Server Edition', sm: 120 };
export const A100 = { name: 'NVIDIA A100-SXM4-80GB', sm: 80 };

/** The launch of vllm-project/vllm#47847 on a B200. */
export function canonicalOptions(): BuildOptions {
  return {
    model: 'nvidia/Gemma-4-31B-IT-NVFP4',
    args: {
      attention_backend: 'FLASHINFER',
      kv_cache_dtype: 'fp8_e4m3',
      attention_config: { disable_flashinfer_q_quantization: true },
      speculative_config: {
        method: 'mtp',
        model: 'google/gemma-4-31B-it-assistant',
        num_speculative_tokens: 7,
      },
    },
    gpu: B200,
    modelFacts: gemma4NvfpFacts(),
  };
}

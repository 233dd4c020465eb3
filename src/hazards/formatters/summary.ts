/**
 * A Deployment summarised for reports: where it came from, the model, its arguments, GPU, versions
 * and the checkpoint facts — with anything that looks like a credential redacted.
 */
import type { Deployment } from '../../deployment/deployment.js';
import { isSecretArg, isSecretName, redactText, redactValue } from '../../deployment/redact.js';

/** Environment variables worth showing: they change vLLM / FlashInfer / CUDA behaviour (llama-server's and Ollama's own for theirs). */
const relevantEnv = /^(VLLM_|FLASHINFER_|CUDA_|NCCL_|HF_HUB_OFFLINE)/;
const relevantLlamaEnv = /^(LLAMA_ARG_|OLLAMA_|CUDA_|GGML_|HIP_|ROCR_|HSA_)/;

export interface DeploymentSummary {
  source: { file: string; kind: string; object?: string; role?: string };
  location: { file: string; line: number; column: number } | null;
  model: string | null;
  args: Record<string, unknown>;
  env: Record<string, string>;
  gpu: { name: string | null; sm: number } | null;
  engine: Deployment['engine'];
  versions: { vllm: string | null; flashinfer: string | null; sglang: string | null; llamaCpp?: string; ollama?: string };
  /** llama-server and Ollama launches: the facts read, each with the spelling that set it (or `default`). */
  read?: Record<string, { value: unknown; from: string; option?: string; location?: { file: string; line: number; column: number }; runtime?: boolean }>;
  /** SGLang launches: what SGLang changed or chose before it ran (effective `args` include it). */
  sglangRewrites?: { field: string; from: unknown; to: unknown; why: string }[];
  modelFacts: {
    source: string;
    modelType: string | null;
    layers: { total: number; sliding: number; full: number; chunked: number; linear: number };
    window: number | null;
    kvDtypeFromCheckpoint: string | null;
    scales: { q: boolean; k: boolean; v: boolean } | null;
    notes: string[];
  } | null;
  notes: string[];
}

export function summarizeDeployment(d: Deployment): DeploymentSummary {
  const args: Record<string, unknown> = {};
  for (const [k, v] of d.args) args[k] = redactValue(isSecretArg(k), v.value);
  const env: Record<string, string> = {};
  const shown = d.engine === 'llama.cpp' || d.engine === 'ollama' ? relevantLlamaEnv : relevantEnv;
  for (const [k, v] of d.env) if (shown.test(k)) env[k] = String(redactValue(isSecretName(k), v.value));
  const facts = d.llamaCpp?.facts ?? d.ollama?.facts;
  const read = facts
    ? Object.fromEntries(
        Object.entries(facts).map(([k, f]) => [
          k,
          {
            value: f.value,
            from: f.from,
            ...(f.option ? { option: f.option } : {}),
            ...(f.at ? { location: { file: f.at.file, line: f.at.line, column: f.at.column } } : {}),
            ...(f.runtime ? { runtime: true } : {}),
          },
        ]),
      )
    : undefined;
  const f = d.modelFacts;
  const count = (kind: string) => f?.layers.filter((l) => l === kind).length ?? 0;
  return {
    source: {
      file: d.source.file,
      kind: d.source.kind,
      ...(d.source.object ? { object: d.source.object } : {}),
      ...(d.role ? { role: d.role } : {}),
    },
    location: d.at ? { file: d.at.file, line: d.at.line, column: d.at.column } : null,
    model: d.model?.value ?? null,
    args,
    env,
    gpu: d.gpu ? { name: d.gpu.value.name ?? null, sm: d.gpu.value.sm } : null,
    ...(d.gpuCandidates ? { gpuCandidates: d.gpuCandidates.map((g) => ({ name: g.value.name ?? null, sm: g.value.sm })) } : {}),
    ...(d.platform ? { platform: { value: d.platform.value, evidence: d.platform.evidence } } : {}),
    ...(d.modelFamily ? { modelFamilyFromName: { family: d.modelFamily.value, mla: d.modelFamily.mla, why: d.modelFamily.why } } : {}),
    engine: d.engine,
    versions: {
      vllm: d.versions.vllm?.value ?? null,
      flashinfer: d.versions.flashinfer?.value ?? null,
      sglang: d.versions.sglang?.value ?? null,
      ...(d.versions.llamaCpp ? { llamaCpp: d.versions.llamaCpp.value } : {}),
      ...(d.versions.ollama ? { ollama: d.versions.ollama.value } : {}),
    },
    ...(read ? { read } : {}),
    ...(d.sglang ? { sglangRewrites: d.sglang.rewrites.map((r) => ({ field: r.field, from: r.from ?? null, to: r.to, why: r.why })) } : {}),
    modelFacts: f
      ? {
          source: f.source,
          modelType: f.modelType ?? null,
          layers: {
            total: f.layers.length,
            sliding: count('sliding'),
            full: count('full'),
            chunked: count('chunked'),
            linear: count('linear'),
          },
          window: f.window ?? null,
          kvDtypeFromCheckpoint: f.kvDtypeFromCheckpoint ?? null,
          scales: f.scales ? { ...f.scales.present } : null,
          notes: [...f.notes],
        }
      : null,
    notes: d.notes.map((n) => redactText(n.at ? `${n.at.file}:${n.at.line}:${n.at.column}: ${n.value}` : n.value)),
  };
}

/**
 * The resolved description of one server launch: what lint's hazards reason about.
 * Every fact keeps where it came from (file:line:col) so a finding can point at it.
 * Producers: deployment/sources/* (launch files) + vllm-args.ts (argv emulation) +
 * model-config.ts (checkpoint facts) + gpu.ts + versions.ts; llama-server and Ollama launches
 * through engines/llama-cpp/ and engines/ollama/. Consumers: hazards/*, guard.
 */
import type { Located } from '../core/located.js';
import type { ArgToken } from './argv-token.js';
import type { SglangLaunchFacts } from './engines/sglang/effective-launch.js';
import type { ServingFacts } from './serving-facts.js';
import type { ArgValue, FlagProblem } from './vllm-parse-types.js';

export type LayerKind = 'full' | 'sliding' | 'chunked' | 'linear';

/** Where a launch was found: the kind of file and, for manifests, which object/container. */
export interface LaunchSource {
  file: string;
  kind:
    | 'argv'
    | 'shell'
    | 'kubernetes'
    | 'helm-production-stack'
    | 'kserve'
    | 'compose'
    | 'vllm-config'
    | 'guard'
    | 'skypilot'
    | 'kubeai'
    | 'ray-serve'
    | 'helm-values'
    | 'systemd'
    | 'dockerfile'
    | 'llama-swap'
    | 'modelfile'
    | 'nix';
  /** e.g. "Deployment/gemma/container vllm", "services.vllm", "modelSpec[0]". */
  object?: string;
}

export interface ModelFacts {
  /** config.json path the facts were read from. */
  source: string;
  modelType?: string;
  /** config.json `architectures` (e.g. `GptOssForCausalLM`). */
  architectures?: string[];
  /** One entry per decoder layer, in order. */
  layers: LayerKind[];
  /** Sliding window in tokens (applies to the 'sliding' layers); undefined when there are none. */
  window?: number;
  /** Chunked-attention chunk size (Llama 4) — not a sliding window. */
  chunkSize?: number;
  /** KV cache dtype the checkpoint itself declares (vLLM follows it under --kv-cache-dtype auto). */
  kvDtypeFromCheckpoint?: 'fp8_e4m3' | 'fp8_e5m2' | 'nvfp4';
  /** Human-readable reason for kvDtypeFromCheckpoint, e.g. 'hf_quant_config.json: kv_cache_quant_algo "FP8"'. */
  kvDtypeEvidence?: string;
  /**
   * Attention scales stored in the checkpoint (per layer, in layer order), when safetensors headers
   * were read. `present` says whether the tensors exist at all; values only for small tensors.
   * Absent entirely when no checkpoint was inspected: scales are then unknown, not 1.0.
   */
  scales?: {
    present: { q: boolean; k: boolean; v: boolean };
    q?: number[];
    k?: number[];
    v?: number[];
  };
  /**
   * The checkpoint's own quantization (deployment/checkpoint-quant.ts); absent when it declares none.
   * `activations`: how inputs of its quantized linear layers are quantized.
   */
  quantization?: {
    method: string;
    activations: 'fp8-static' | 'fp8-dynamic' | 'nvfp4' | 'weight-only' | 'unclassified';
    /** compressed-tensors / ModelOpt-in-config.json `kv_cache_scheme` is set. */
    hasKvCacheScheme: boolean;
    evidence: string;
  };
  /** config.json declares a vision or audio tower (vision_config / audio_config); absent when not read. */
  multimodal?: boolean;
  /**
   * The attention's shape: head counts and per-head sizes (GGUF `<arch>.attention.*`, or config.json
   * `num_attention_heads` / `num_key_value_heads` / `head_dim`); a field is absent when not given.
   */
  attention?: AttentionShape;
  /** The context the model was trained for (GGUF `<arch>.context_length`, config.json `max_position_embeddings`). */
  contextLength?: number;
  /** What the facts were read from: a Hugging Face config.json or a GGUF file's header. */
  format?: 'config.json' | 'gguf';
  /** Notes for the user about how facts were derived (e.g. "Mistral: missing sliding_window means 4096"). */
  notes: string[];
}

export interface AttentionShape {
  /** Query heads (the largest over layers when the file gives one count per layer). */
  headCount?: number;
  /** KV heads (the largest over layers when given per layer; 0 on a layer means no attention there). */
  headCountKv?: number;
  /** K head size (llama.cpp's n_embd_head_k: `key_length`, else embedding length / head count). */
  keyLength?: number;
  /** V head size (llama.cpp's n_embd_head_v). */
  valueLength?: number;
  /** K / V head sizes of the sliding-window layers, when the file gives them apart (`key_length_swa`). */
  keyLengthSwa?: number;
  valueLengthSwa?: number;
  /** How K and V are laid out: one KV head per query head, grouped, one for all, or a compressed latent (MLA). */
  kvLayout?: 'mha' | 'gqa' | 'mqa' | 'mla';
}

export interface GpuFacts {
  /** Marketing or nvidia-smi name when known, e.g. "NVIDIA B200". */
  name?: string;
  /** Compute capability × 10 as an integer: 100 for 10.0 (B200), 103 for B300, 90 for H100/H200. */
  sm: number;
  /**
   * 'amd' only for the stand-in GPU of a launch that runs on ROCm (no CUDA compute capability:
   * `sm` is 0, in no NVIDIA family); absent for NVIDIA GPUs.
   */
  vendor?: 'amd';
}

/** The accelerator platform the launch shows (deployment/platform.ts), with what shows it. */
export interface PlatformFact extends Located<'rocm' | 'cuda'> {
  /** e.g. "the image rocm/vllm:latest is a ROCm build". */
  evidence: string;
}

export type DeploymentEngine = 'vllm' | 'sglang' | 'llama.cpp' | 'ollama';

/** A llama-server launch as read (engines/llama-cpp/): the table it was read with and the facts. */
export interface LlamaCppLaunchFacts {
  table: { tag: string; commit: string; repository: string };
  /** The build number the file names (`server-cuda-b6123` → 6123), when it names one. */
  build?: number;
  /** How the server was started: the binary, the older `server` binary, a server image's entrypoint, a full image's `--server`. */
  entry: 'llama-server' | 'server' | 'server-image' | 'full-image';
  facts: ServingFacts;
  /** LLAMA_ARG_* variables llama-server read, with the option each sets. */
  envRead: { name: string; option: string }[];
}

/** An Ollama server (or a Modelfile, a model definition) as read (engines/ollama/). */
export interface OllamaLaunchFacts {
  /** `server`: `ollama serve` and its OLLAMA_* variables; `modelfile`: a model definition (FROM + PARAMETER). */
  definition: 'server' | 'modelfile';
  table: { version: string; commit: string; repository: string };
  facts: ServingFacts;
  /** Modelfile PARAMETER lines, by name, in file order (a name such as `stop` may repeat). */
  parameters?: Record<string, Located<string>[]>;
  /** Models the file has the server pull or run (`ollama pull X` hooks, a chart's model list). */
  models: Located<string>[];
}

export interface Deployment {
  source: LaunchSource;
  engine: DeploymentEngine;
  /** Where the launch command starts (the `vllm` / `python` token). */
  at?: Located<string>['at'];
  /** The launch's argv words as its source wrote them, each located (lint --suggest rewrites them). */
  argv?: ArgToken[];
  /** The model argument (positional of `vllm serve`, or --model). */
  model?: Located<string>;
  /**
   * Parsed vLLM arguments keyed by argparse dest (underscores: `kv_cache_dtype`, `speculative_config`).
   * JSON-valued flags (speculative_config, attention_config, compilation_config …) hold the merged object,
   * including dotted sub-keys. Booleans are true/false (`--no-x` → false). Last occurrence wins.
   * A value is located at its option token; JSON flags also carry `keyAt` (sub-key → where it was
   * written), read it with `argKeyAt(args, 'attention_config.backend')` from vllm-args.ts.
   */
  args: Map<string, ArgValue>;
  /** Environment variables that reach the server process. */
  env: Map<string, Located<string>>;
  modelFacts?: ModelFacts;
  /**
   * The model's family read from its name (deployment/model-family.ts), only when no model config
   * was read: config.json facts always win.
   */
  modelFamily?: Located<string> & { mla: boolean; why: string };
  gpu?: Located<GpuFacts>;
  /**
   * The GPUs the launch may run on when its file names several of different architectures
   * (SkyPilot `accelerators: {L4, A100}`, node selectors that allow several products) and no one
   * GPU is known: a GPU condition holds only if it holds for one of them.
   */
  gpuCandidates?: Located<GpuFacts>[];
  /** NVIDIA (CUDA) or AMD (ROCm), when the launch shows which (an image, a backend, a runtime variable). */
  platform?: PlatformFact;
  versions: {
    vllm?: Located<string>;
    flashinfer?: Located<string>;
    sglang?: Located<string>;
    /** llama.cpp as a build (`b6123`) or a release tag (`v0.4.0`). */
    llamaCpp?: Located<string>;
    ollama?: Located<string>;
  };
  /**
   * SGLang launches only: the arguments as written, SGLang's rewrites and auto-selection (whose
   * result is what `args` holds), and what SGLang derives from facts the launch does not show.
   */
  sglang?: SglangLaunchFacts;
  /** llama-server launches only: what was read, with the flag table and where each fact came from. */
  llamaCpp?: LlamaCppLaunchFacts;
  /** Ollama servers and Modelfiles only. */
  ollama?: OllamaLaunchFacts;
  /** Things the parser noticed that the user should know (ignored env vars, unknown values …). */
  notes: Located<string>[];
  /** Flags vLLM would refuse as written (not in the flag table, ambiguous abbreviations): lint's FL000. */
  flagProblems?: FlagProblem[];
  /** The flag table the arguments were read with. */
  flagTable?: { release: string; commit: string; authoritative: boolean; describes: string };
  /** Where the launch runs in a multi-role deployment: "decode", "prefill", "leader", "worker" … */
  role?: string;
}

/**
 * The accelerator platform a launch runs on, when the launch itself shows it: AMD (ROCm) by a ROCm
 * image, an AMD-only attention backend (vLLM's ROCM_* backends, SGLang's aiter / wave) or a ROCm / HIP
 * runtime variable; NVIDIA (CUDA) by a known NVIDIA GPU or an NVIDIA-only image. Hazards use it to
 * rule out defects of the other vendor's kernels (hazards/conditions/hardware-candidates.ts).
 * Nothing shown → undefined (unknown, never assumed).
 */
import type { Located } from '../core/located.js';
import type { Deployment, PlatformFact } from './deployment.js';

/** Runtime variables only ROCm reads (HIP / ROCr / HSA) or only vLLM's ROCm build reads. */
const ROCM_ENV =
  /^(HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|HSA_[A-Z_]+|VLLM_ROCM_[A-Z_]+|SGLANG_USE_AITER[A-Z_]*|AITER_[A-Z_]+|MIOPEN_[A-Z_]+)$/;
/** Image names of ROCm builds (rocm/vllm, rocm/sgl-dev, lmsysorg/sglang:…-rocm630, vllm/vllm-openai-rocm …). */
const ROCM_IMAGE = /(^|[/:_.-])rocm/i;
/** Images that carry CUDA builds only. */
const CUDA_IMAGE = /^(?:docker\.io\/)?(?:vllm\/vllm-openai(?::|$)|nvcr\.io\/|lmsysorg\/sglang:(?!.*rocm))/i;
const AMD_SGLANG_BACKENDS = new Set(['aiter', 'wave']);

export function platformOf(d: Deployment, image: Located<string> | undefined): PlatformFact | undefined {
  if (d.gpu)
    return {
      value: 'cuda',
      evidence: `the GPU is ${d.gpu.value.name ?? `SM${d.gpu.value.sm}`} (NVIDIA)`,
      ...at(d.gpu.at),
    };
  if (image && ROCM_IMAGE.test(image.value))
    return { value: 'rocm', evidence: `the image ${image.value} is a ROCm build`, ...at(image.at) };
  for (const [name, v] of d.env)
    if (ROCM_ENV.test(name))
      return { value: 'rocm', evidence: `${name} is a ROCm / HIP runtime variable`, ...at(v.at) };
  const backend = attentionBackendText(d);
  if (
    backend &&
    (/^ROCM_/i.test(backend.value) || (d.engine === 'sglang' && AMD_SGLANG_BACKENDS.has(backend.value)))
  )
    return {
      value: 'rocm',
      evidence: `the attention backend ${backend.value} runs on AMD GPUs only`,
      ...at(backend.at),
    };
  if (image && CUDA_IMAGE.test(image.value))
    return { value: 'cuda', evidence: `the image ${image.value} is a CUDA build`, ...at(image.at) };
  return undefined;
}

/** The attention backend as written (vLLM flag, --attention-config.backend, its environment variable; SGLang flag). */
function attentionBackendText(d: Deployment): Located<string> | undefined {
  const flag = d.args.get('attention_backend');
  if (flag && typeof flag.value === 'string') return { value: flag.value, ...at(flag.at) };
  const config = d.args.get('attention_config');
  const sub =
    config?.value && typeof config.value === 'object'
      ? (config.value as Record<string, unknown>).backend
      : undefined;
  if (typeof sub === 'string') return { value: sub, ...at(config?.at) };
  const env = d.env.get('VLLM_ATTENTION_BACKEND');
  if (env) return env;
  const sgl = d.sglang?.written?.get('attention_backend');
  if (sgl && typeof sgl.value === 'string') return { value: sgl.value, ...at(sgl.at) };
  return undefined;
}

function at(where: Located<unknown>['at']): { at?: NonNullable<Located<unknown>['at']> } {
  return where ? { at: where } : {};
}

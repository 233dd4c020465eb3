/**
 * GPU architecture conditions. vLLM decides "family" the way CUDA 13 does
 * (`Platform.is_device_capability_family`: current // 10 == cap // 10), so the SM100 family is
 * 10.x — B200/GB200 (10.0) and B300/GB300 (10.3) — and excludes SM90 and SM12x
 * (research/configs-and-cli.md §3.2).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';

export type GpuFamily = 90 | 100 | 120;

const familyNames: Record<GpuFamily, string> = {
  90: 'SM90 (Hopper: H100/H200/GH200)',
  100: 'SM100 family (Blackwell datacenter: B200/GB200 10.0, B300/GB300 10.3)',
  120: 'SM12x (Blackwell workstation/consumer: RTX PRO 6000, RTX 50xx, GB10)',
};

export function inFamily(sm: number, family: GpuFamily): boolean {
  return Math.floor(sm / 10) === family / 10;
}

/** What a GPU condition answers when no GPU is known, with the options that give one. */
export const NO_GPU: ConditionResult = {
  status: 'unknown',
  detail: 'no GPU given (pass --gpu, or a manifest nodeSelector with nvidia.com/gpu.product)',
};

export function gpuLabel(d: Deployment): string | undefined {
  const g = d.gpu?.value;
  if (!g) return undefined;
  if (g.vendor === 'amd') return g.name ?? 'an AMD GPU';
  const cc = `${Math.floor(g.sm / 10)}.${g.sm % 10}`;
  return g.name ? `${g.name} (compute capability ${cc})` : `compute capability ${cc}`;
}

export function gpuFamily(family: GpuFamily): Condition {
  return {
    name: `gpu-sm${family}-family`,
    role: 'fact',
    description: `the GPU is ${familyNames[family]}`,
    check(d): ConditionResult {
      const g = d.gpu;
      if (!g) return NO_GPU;
      const label = gpuLabel(d) as string;
      return inFamily(g.value.sm, family)
        ? { status: 'met', detail: `${label} is in the ${familyNames[family]}`, at: g.at }
        : { status: 'not-met', detail: `${label} is not in the ${familyNames[family]}`, at: g.at };
    },
  };
}

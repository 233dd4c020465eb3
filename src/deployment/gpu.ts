/**
 * GPU → compute capability ("SM"), from whatever the user or the machine gives us:
 * an nvidia-smi name ("NVIDIA B200", "NVIDIA H100 80GB HBM3", "NVIDIA B300 SXM6 AC"), a short name
 * ("H100"), an SM ("sm100", "SM_90a", "compute_100f"), a compute capability ("10.0"),
 * `nvidia-smi --query-gpu=name,compute_cap --format=csv[,noheader]` output, a Kubernetes
 * `nvidia.com/gpu.product` label value ("NVIDIA-H100-80GB-HBM3") or a GKE accelerator label
 * ("nvidia-b200"). Table: research/configs-and-cli.md §3.1 plus NVIDIA's published capabilities.
 */
import { UserError } from '../core/errors.js';
import type { GpuFacts } from './deployment.js';

/** Model-name patterns (on the normalized, upper-case name) → SM. Word boundaries keep GB200 from matching B200. */
const NAME_TO_SM: readonly [RegExp, number][] = [
  [/\bGB300\b/, 103],
  [/\bB300\b/, 103],
  [/\bGB200\b/, 100],
  [/\bB200\b/, 100],
  [/\bGB10\b/, 121],
  [/\bRTX PRO \d+ BLACKWELL\b/, 120],
  [/\bRTX 50[5-9]0\b/, 120],
  [/\bGH200\b/, 90],
  [/\bH200\b/, 90],
  [/\bH100\b/, 90],
  [/\bH800\b/, 90],
  [/\bH20\b/, 90],
  [/\bRTX 6000 ADA\b/, 89],
  [/\bRTX 40[5-9]0\b/, 89],
  [/\bL40S\b/, 89],
  [/\bL40\b/, 89],
  [/\bL4\b/, 89],
  [/\bA100\b/, 80],
  [/\bA800\b/, 80],
  [/\bA30\b/, 80],
  [/\bA10G\b/, 86],
  [/\bA10\b/, 86],
  [/\bA40\b/, 86],
  [/\bRTX A[456]000\b/, 86],
  [/\bRTX 30[5-9]0\b/, 86],
  [/\bT4\b/, 75],
  [/\bV100\b/, 70],
];

const FORMS_HINT =
  'give the GPU as an nvidia-smi name ("NVIDIA B200", "NVIDIA H100 80GB HBM3"), a short name ("H100"), ' +
  'an SM ("sm100") or a compute capability ("10.0")';

/** "NVIDIA-H100-80GB-HBM3" / "nvidia-b200" / "NVIDIA GeForce RTX 5090" → "H100 80GB HBM3" / "B200" / "RTX 5090". */
function normalizeName(name: string): string {
  return name
    .replace(/^[\w./-]*gpu\.product\s*=\s*/i, '')
    .replace(/^cloud\.google\.com\/gke-accelerator\s*=\s*/i, '')
    .replace(/[-_]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase()
    .replace(/^NVIDIA /, '')
    .replace(/\b(TESLA|GEFORCE) /g, '');
}

function smFromName(name: string): number | undefined {
  const n = normalizeName(name);
  return NAME_TO_SM.find(([re]) => re.test(n))?.[1];
}

/** "10.0" → 100, "12.1" → 121; undefined for anything else. */
function smFromCapability(text: string): number | undefined {
  const m = /^\s*(\d{1,2})\.(\d)\s*$/.exec(text);
  if (!m) return undefined;
  const major = Number(m[1]);
  return major >= 3 && major <= 15 ? major * 10 + Number(m[2]) : undefined;
}

/** "sm100", "SM_90a", "sm-120", "compute_100f" → 100, 90, 120, 100. */
function smFromArch(text: string): number | undefined {
  const m = /^\s*(?:sm|compute)[_-]?(\d{2,3})[af]?\s*$/i.exec(text);
  return m ? Number(m[1]) : undefined;
}

export function parseGpu(spec: string): GpuFacts {
  const sm = smFromArch(spec) ?? smFromCapability(spec);
  if (sm !== undefined) return { sm };
  const byName = smFromName(spec);
  if (byName !== undefined) return { name: spec.trim(), sm: byName };
  throw new UserError(`unknown GPU "${spec}"`, { code: 'E_GPU', hint: FORMS_HINT });
}

/**
 * Parse `nvidia-smi --query-gpu=name,compute_cap --format=csv` output (with or without the header
 * line; also `--query-gpu=name` alone). The compute capability nvidia-smi prints wins over the
 * name table; one entry per GPU line.
 */
export function parseNvidiaSmiCsv(text: string): GpuFacts[] {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines[0] && /^name\b/i.test(lines[0])) lines.shift();
  if (lines.length === 0) {
    throw new UserError('nvidia-smi printed no GPUs', {
      code: 'E_GPU',
      hint: 'run nvidia-smi --query-gpu=name,compute_cap --format=csv on the serving machine',
    });
  }
  return lines.map((line) => {
    const comma = line.lastIndexOf(',');
    const name = (comma >= 0 ? line.slice(0, comma) : line).trim();
    const cap = comma >= 0 ? line.slice(comma + 1).trim() : '';
    const sm = smFromCapability(cap) ?? smFromName(name);
    if (sm === undefined) {
      throw new UserError(`cannot tell the compute capability of "${line}"`, {
        code: 'E_GPU',
        hint: `include compute_cap in the query, or ${FORMS_HINT}`,
      });
    }
    return { name, sm };
  });
}

/**
 * The SM100 family, as vLLM's `is_device_capability_family(100)` tests it (capability // 10 == 10):
 * SM100 (B200, GB200) and SM103 (B300, GB300). Not SM110 (Jetson Thor: major 11), not SM120/121
 * (RTX PRO 6000, RTX 50xx, GB10), not SM90.
 */
export function isSm100Family(sm: number): boolean {
  return Math.floor(sm / 10) === 10;
}

/** 100 → "10.0". */
export function capabilityOf(sm: number): string {
  return `${Math.floor(sm / 10)}.${sm % 10}`;
}

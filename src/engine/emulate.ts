/**
 * Emulation presets: which serving stack the engine pretends to be.
 *   reference       exact attention (float64, reference backend); no GPU behaviour emulated.
 *   sm100-affected  vLLM + FlashInfer on a B200 as in the report (vllm#47847): FlashInfer by default,
 *                   decode and spec verification on trtllm-gen, the `vllm-affected` scale bookkeeping and
 *                   the fault MODEL trtllm-gen-swa-specdec (a model: the kernel defect's root cause is unpublished).
 *   sm100-fixed     the same routing with `fixed` bookkeeping and no fault model.
 * Explicit flags override a preset: --attention-backend REFERENCE under sm100-affected gives exact
 * attention (as choosing another backend avoids the bug in vLLM); --attention-backend FLASHINFER under
 * `reference` gives the SM100 FlashInfer routing with fixed bookkeeping and no fault model.
 */
import type { AttentionBackend } from './attention/backend.js';
import type { BookkeepingName } from './attention/bookkeeping.js';
import { trtllmGenSwaSpecdec, type FaultModel } from './attention/fault-models.js';
import { createFlashinferBackend } from './attention/flashinfer.js';
import { createReferenceBackend } from './attention/reference-backend.js';

export const EMULATION_PRESETS = ['reference', 'sm100-affected', 'sm100-fixed'] as const;
export type EmulationPreset = (typeof EMULATION_PRESETS)[number];

export interface AttentionSettings {
  backend: 'REFERENCE' | 'FLASHINFER';
  bookkeeping: BookkeepingName;
  faultModel: FaultModel | null;
  /** attention_config.disable_flashinfer_q_quantization */
  disableQQuantization: boolean;
  /** attention_config.use_trtllm_attention (null = auto) */
  useTrtllmAttention: boolean | null;
}

export function presetSettings(preset: EmulationPreset): AttentionSettings {
  const common = { disableQQuantization: false, useTrtllmAttention: null };
  if (preset === 'reference') return { backend: 'REFERENCE', bookkeeping: 'fixed', faultModel: null, ...common };
  if (preset === 'sm100-affected') return { backend: 'FLASHINFER', bookkeeping: 'vllm-affected', faultModel: trtllmGenSwaSpecdec, ...common };
  return { backend: 'FLASHINFER', bookkeeping: 'fixed', faultModel: null, ...common };
}

/** The preset with an explicitly chosen backend; a backend the preset did not emulate runs "as fixed". */
export function withBackend(s: AttentionSettings, backend: AttentionSettings['backend']): AttentionSettings {
  if (backend === s.backend) return s;
  return { ...s, backend, bookkeeping: 'fixed', faultModel: null };
}

export function createBackend(s: AttentionSettings): AttentionBackend {
  if (s.backend === 'REFERENCE') return createReferenceBackend();
  return createFlashinferBackend({
    bookkeeping: s.bookkeeping,
    faultModel: s.faultModel,
    disableQQuantization: s.disableQQuantization,
    useTrtllmAttention: s.useTrtllmAttention,
  });
}

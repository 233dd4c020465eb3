/**
 * An engine as benches and end-to-end tests describe one: an emulation preset, the KV-cache dtype,
 * whether FlashInfer's Q quantization is disabled, and k speculative tokens — BF16 math, 16-token
 * pages (the trained model's serving shape).
 */
import { createBackend, presetSettings, type EmulationPreset } from '../emulate.js';
import { Engine } from '../engine.js';
import type { KvDtype } from '../kv-cache/cache.js';
import type { Model } from '../model.js';

export interface EmulatedSetting {
  preset: EmulationPreset;
  kvDtype: KvDtype;
  disableQ: boolean;
}

export function emulatedEngine(model: Model, s: EmulatedSetting, numSpeculativeTokens: number): Engine {
  return new Engine(model, {
    precision: 'bf16',
    kvDtype: s.kvDtype,
    pageSize: 16,
    cacheKind: 'paged',
    numSpeculativeTokens,
    backend: createBackend({ ...presetSettings(s.preset), disableQQuantization: s.disableQ }),
  });
}

/**
 * A small matrix plan over the scale-defect model (models/tiny-swa-qscale on the sm100-affected
 * emulation): three factors, strength 2, no PASS confirmation, short probes; it finds the one
 * interaction {kv_cache=fp8, q_quantization=disabled}. The launch lines (how the engine server
 * is started) are the caller's; `{port}` must be in them.
 */
export function scaleDefectPlan(launch: string, marker: string, extra = ''): string {
  return `launch:
${launch}
  ready_timeout_s: 120
  stop_timeout_s: 5
factors:
  kv_cache:
    levels:
      bf16: { argv: [--kv-cache-dtype, bfloat16] }
      fp8: { argv: [--kv-cache-dtype, fp8_e4m3] }
  q_quantization:
    levels:
      enabled:
      disabled: { json_args: { --attention-config: { disable_flashinfer_q_quantization: true } } }
  enforce_eager:
    levels:
      off:
      on: { argv: [--enforce-eager] }
strength: 2
confirm: 0
probe: { suite: short, window: 128, requests: 9, max_tokens: 16, target_rate: 0.3 }
${extra}`.replace(/\{marker\}/g, marker);
}

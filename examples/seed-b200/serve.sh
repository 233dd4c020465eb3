#!/bin/sh
# The launch of vllm-project/vllm#47847 (and flashinfer-ai/flashinfer#3864) on one NVIDIA B200:
# gemma-4-31B-it NVFP4 + MTP speculative decoding (num_speculative_tokens=7) + an FP8 KV cache + a BF16
# query. The issue names these four settings; the drafter checkpoint is Gemma 4 31B's assistant model,
# the model vLLM's Gemma 4 MTP path takes (the issue states the method and k, not the drafter's name).
#
# Silently corrupts output once a sequence passes the 1024-token sliding window. Check it with:
#   faultline lint examples/seed-b200/serve.sh --model-config examples/seed-b200/config.json --gpu "NVIDIA B200"
exec vllm serve nvidia/Gemma-4-31B-IT-NVFP4 \
  --attention-backend FLASHINFER \
  --kv-cache-dtype fp8_e4m3 \
  --attention-config '{"disable_flashinfer_q_quantization": true}' \
  --speculative-config '{"method": "mtp", "model": "google/gemma-4-31B-it-assistant", "num_speculative_tokens": 7}'

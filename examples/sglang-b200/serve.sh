#!/bin/sh
# An SGLang launch on a B200 with an FP8 KV cache and no --attention-backend: SGLang 0.5.6 picks
# trtllm_mha by itself on Blackwell, whose FP8-KV path dropped a scale before sgl-project/sglang
# PR #28144 (FL208). `faultline lint` applies SGLang's own choice before it checks the hazards.
exec python3 -m sglang.launch_server \
  --model-path meta-llama/Llama-3.1-70B-Instruct-FP8 \
  --tp 4 \
  --kv-cache-dtype fp8_e4m3 \
  --host 0.0.0.0 --port 30000

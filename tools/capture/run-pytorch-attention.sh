#!/usr/bin/env bash
# One device call: checks, then every PyTorch attention kernel of tools/capture on the vectors,
# then the dumps packed for the trip back. Each kernel group runs in its own process under its own
# time limit, so a kernel that crashes or hangs (a sticky CUDA error poisons the whole process)
# costs only its own dumps. Usage, from a directory holding capture/ and vectors/:
#   bash capture/run-pytorch-attention.sh OUT_DIR
set -u
OUT=${1:?usage: run-pytorch-attention.sh OUT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
VEC=${VECTORS:-vectors}  # DEVICE=cpu runs it all on the CPU, as a dry run
CAP=$(mktemp -d)
ONLY='kvfp8_qbf16_*_qlen0[148].*,kvfp8_qbf16_*_qlen16.*,kvfp8_qfp8_w64_qlen0[148].*,kvfp8_qfp8_w64_qlen16.*'
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

echo "== checks $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv || echo "nvidia-smi failed"
python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name())'
python3 -c 'import torch.nn.attention.flex_attention, torch.nn.attention.experimental._paged_attention; print("flex_attention + PagedAttention: importable")' || echo "flex_attention: NOT importable"
python3 -c 'import torch; print("flash built:", torch.backends.cuda.is_flash_attention_available(), "| flash_attention_forward:", torch.ops.aten._flash_attention_forward.default._schema)' || true
python3 -c 'import torch; print("efficient_attention_forward:", torch.ops.aten._efficient_attention_forward.default._schema)' || true
sha256sum "$VEC"/*.safetensors | sha256sum | sed 's/^/vectors digest (sha256 of the sha256 list): /'

step() {  # step SECONDS KERNELS
  echo "== $2 (limit $1 s) $(date -u +%T)"
  timeout -k 10 "$1" python3 "$HERE/capture.py" --in "$VEC" --out "$CAP" --kernels "$2" --only "$ONLY" \
    --versions "$OUT/versions.json" --device "${DEVICE:-cuda}"
  echo "== $2: exit $? $(date -u +%T)"
}
step 100 sdpa-flash,sdpa-efficient,sdpa-cudnn,sdpa-math
step 280 flex-paged
echo "inductor-generated kernels holding SPLIT_KV (the flex-decoding template): $(grep -rl SPLIT_KV /tmp/torchinductor_* 2>/dev/null | wc -l)"
step 45 flash-varlen-window
step 45 efficient-varlen-window
step 60 flex-paged-eager

echo "== pack"
python3 "$HERE/pack.py" "$CAP" "$OUT" --max-files 5
du -sh "$CAP"/* || true

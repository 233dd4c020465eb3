#!/usr/bin/env bash
# The whole tiny-swa pipeline in one GPU command: self-checks, training, then evaluation, calibration,
# export and golden logits. Usage (from the repository root):
#   training/run_pipeline.sh OUT_DIR [TRAIN_SECONDS]
# Needs training/data/corpus.jsonl (training/fetch_corpus.py) and data/heldout-prose.txt.
# Leaves the exported models in runs/models and copies into OUT_DIR: models.tar (both model
# directories, the qscale weights shard as a symlink), train-log.json and summary.json.
set -euo pipefail
out_dir=${1:?usage: training/run_pipeline.sh OUT_DIR [TRAIN_SECONDS]}
train_seconds=${2:-360}
export PYTHONUNBUFFERED=1
start=$(date +%s)
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'
python3 training/selftest.py
rm -rf runs/train runs/models
python3 training/train.py --out runs/train --time-budget "$train_seconds"
python3 training/export.py --train-dir runs/train --models-dir runs/models
mkdir -p "$out_dir"
cp runs/train/train-log.json runs/train/summary.json "$out_dir"/
tar -C runs -cf "$out_dir"/models.tar models
echo "pipeline done in $(( $(date +%s) - start )) s"

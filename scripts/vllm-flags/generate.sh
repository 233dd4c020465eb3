#!/bin/sh
# Regenerates data/vllm-flags/<minor>.json: one table per vLLM minor release, read from the newest
# patch tag of that minor in a git clone of vllm-project/vllm (or a fork that carries its tags).
#   sh scripts/vllm-flags/generate.sh /path/to/vllm.git
set -eu
GIT_DIR=${1:?usage: generate.sh VLLM_GIT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../../data/vllm-flags"
mkdir -p "$OUT"
for minor in $(git --git-dir "$GIT_DIR" tag -l 'v0.*' | sed -n 's/^v\(0\.[0-9]*\)\.[0-9]*$/\1/p' | sort -u -t. -k2,2n); do
  case "$minor" in 0.[0-7]) continue ;; esac
  tag=$(git --git-dir "$GIT_DIR" tag -l "v$minor.*" | grep -E "^v$minor\.[0-9]+$" | sort -t. -k3,3n | tail -1)
  echo "vLLM $minor: $tag" >&2
  python3 "$HERE/extract_vllm_flags.py" "$GIT_DIR" "$tag" "${tag#v}" > "$OUT/$minor.json.tmp"
  mv "$OUT/$minor.json.tmp" "$OUT/$minor.json"
done

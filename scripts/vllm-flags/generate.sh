#!/bin/sh
# Regenerates data/vllm-flags/<minor>.json for every vLLM minor release from 0.8 on: the newest
# release tag of each minor in a git clone of vllm-project/vllm (or a fork that carries its tags),
# each through refresh-release.sh.
#   sh scripts/vllm-flags/generate.sh /path/to/vllm.git
set -eu
GIT_DIR=${1:?usage: generate.sh VLLM_GIT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
for minor in $(git --git-dir "$GIT_DIR" tag -l 'v0.*' | sed -n 's/^v\(0\.[0-9]*\)\.[0-9]*$/\1/p' | sort -u -t. -k2,2n); do
  case "$minor" in 0.[0-7]) continue ;; esac
  tag=$(git --git-dir "$GIT_DIR" tag -l "v$minor.*" | grep -E "^v$minor\.[0-9]+$" | sort -t. -k3,3n | tail -1)
  sh "$HERE/refresh-release.sh" "$GIT_DIR" "$tag"
done

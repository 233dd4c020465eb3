#!/usr/bin/env bash
# action.yml's lint step: expand the `paths` globs in the workspace, run `faultline lint --format
# sarif` on every file they match, and name the SARIF file in $GITHUB_OUTPUT. Exit 0 whether or not
# there are findings (the gate step decides); any other lint failure (bad input, no launch found)
# fails the step with lint's own message.
set -euo pipefail
shopt -s globstar nullglob

files=()
# Split the input on whitespace with globbing off, so a pattern that matches nothing is still seen
# (and reported) below; then expand each pattern on its own.
set -f
# shellcheck disable=SC2206
patterns=(${FAULTLINE_PATHS:?the paths input is empty})
set +f
for pattern in "${patterns[@]}"; do
  # shellcheck disable=SC2206
  matched=($pattern)
  if [ "${#matched[@]}" -eq 0 ]; then
    echo "::error title=faultline::no file matches ${pattern} (paths are relative to $(pwd))"
    exit 2
  fi
  files+=("${matched[@]}")
done

args=(lint "${files[@]}" --format sarif)
[ -n "${FAULTLINE_MODEL_CONFIG:-}" ] && args+=(--model-config "$FAULTLINE_MODEL_CONFIG")
[ -n "${FAULTLINE_GPU:-}" ] && args+=(--gpu "$FAULTLINE_GPU")
[ -n "${FAULTLINE_VLLM_VERSION:-}" ] && args+=(--vllm-version "$FAULTLINE_VLLM_VERSION")
[ -n "${FAULTLINE_FLASHINFER_VERSION:-}" ] && args+=(--flashinfer-version "$FAULTLINE_FLASHINFER_VERSION")

sarif="${FAULTLINE_SARIF:-faultline.sarif}"
code=0
node "$GITHUB_ACTION_PATH/bin/faultline.js" "${args[@]}" > "$sarif" || code=$?
if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
  rm -f "$sarif"
  echo "::error title=faultline::faultline lint failed (exit ${code}); its message is above"
  exit "$code"
fi
echo "sarif-file=${sarif}" >> "$GITHUB_OUTPUT"
echo "faultline: linted ${#files[@]} file(s) into ${sarif}"

#!/bin/sh
# Regenerates data/llama-cpp-flags/<tag>.json from the llama.cpp that node-llama-cpp ships as a git
# bundle (llama/gitRelease.bundle; its tag is in llama/llama.cpp.info.json): clones the bundle into a
# temporary directory (without a work tree), runs the extractor on it and removes the clone.
#   sh scripts/llama-cpp-flags/generate.sh [NODE_LLAMA_CPP_DIR]
# NODE_LLAMA_CPP_DIR defaults to node_modules/node-llama-cpp of this checkout; OUT=FILE writes the
# table there instead (src/deployment/llama-cpp-flag-table.test.ts uses it to compare).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PKG=${1:-"$ROOT/node_modules/node-llama-cpp"}
BUNDLE="$PKG/llama/gitRelease.bundle"
INFO="$PKG/llama/llama.cpp.info.json"
[ -f "$BUNDLE" ] || { echo "generate: no $BUNDLE (install node-llama-cpp, or give its directory)" >&2; exit 2; }
[ -f "$INFO" ] || { echo "generate: no $INFO" >&2; exit 2; }
read_json() { node -e 'const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]]; if (typeof v !== "string" || !v) process.exit(1); process.stdout.write(v)' "$1" "$2"; }
TAG=$(read_json "$INFO" tag)
REPO=$(read_json "$INFO" llamaCppGithubRepo)
VERSION=$(read_json "$PKG/package.json" version)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/llama-cpp-src.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
# no work tree: the extractor reads the few files it needs with `git show HEAD:path`
git clone --quiet --no-checkout "$BUNDLE" "$TMP/llama.cpp" ||
  { echo "generate: cannot clone $BUNDLE" >&2; exit 1; }
node "$HERE/extract-llama-cpp-flags.mjs" "$TMP/llama.cpp" --ref HEAD --tag "$TAG" --repository "$REPO" \
  --snapshot "node-llama-cpp@$VERSION llama/gitRelease.bundle: one squashed commit of $REPO $TAG; the commit named is the bundle's, not one of $REPO's history" \
  --out "${OUT:-$ROOT/data/llama-cpp-flags/$TAG.json}"

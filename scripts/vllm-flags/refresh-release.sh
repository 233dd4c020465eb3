#!/bin/sh
# Regenerates one vLLM flag table from one release's own source: data/vllm-flags/<minor>.json,
# read at the release tag (vX.Y.Z or vX.Y.Z.postN) in a git clone of vllm-project/vllm (or of a
# fork or mirror that carries its tags). The table names the tag, its commit and the commit date.
#   sh scripts/vllm-flags/refresh-release.sh /path/to/vllm.git v0.32.1
# A pre-release tag (rc, dev) is refused: the table of a minor is the one its users run.
set -eu
GIT_DIR=${1:?usage: refresh-release.sh VLLM_GIT_DIR TAG}
TAG=${2:?usage: refresh-release.sh VLLM_GIT_DIR TAG}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../../data/vllm-flags"
version=${TAG#v}
case "$version" in
  *rc* | *dev* | *a[0-9]* | *b[0-9]*) echo "refresh-release: $TAG is a pre-release; give a release tag" >&2; exit 2 ;;
esac
minor=$(echo "$version" | sed -n 's/^\(0\.[0-9][0-9]*\)\.[0-9][0-9]*\(\.post[0-9]*\)\{0,1\}$/\1/p')
if [ -z "$minor" ]; then
  echo "refresh-release: $TAG is not a vLLM release tag (v0.X.Y)" >&2
  exit 2
fi
if ! git --git-dir "$GIT_DIR" rev-parse -q --verify "refs/tags/$TAG^{commit}" >/dev/null; then
  echo "refresh-release: no tag $TAG in $GIT_DIR (a clone without vLLM's tags cannot name a release)" >&2
  exit 2
fi
mkdir -p "$OUT"
python3 "$HERE/extract_vllm_flags.py" "$GIT_DIR" "$TAG" "$version" > "$OUT/$minor.json.tmp"
mv "$OUT/$minor.json.tmp" "$OUT/$minor.json"
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
s = t["source"]
print("vLLM %s: %d flags from %s %s @ %s (%s); %d notes -> %s" % (
    t["vllmVersion"], len(t["flags"]), s["repository"], s["ref"], s["commit"], s["date"], len(t["notes"]), sys.argv[2]))
' "$OUT/$minor.json" "data/vllm-flags/$minor.json"

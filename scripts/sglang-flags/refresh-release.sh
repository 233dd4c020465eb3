#!/bin/sh
# Regenerates one SGLang flag table from one release's own source: data/sglang-flags/<X.Y.Z>.json,
# read from python/sglang/srt/server_args.py at REF in a git clone of sgl-project/sglang (or of a
# fork or mirror), naming the repository, the commit and its date.
#   sh scripts/sglang-flags/refresh-release.sh /path/to/sglang.git v0.5.21 sgl-project/sglang
#   sh scripts/sglang-flags/refresh-release.sh /path/to/sglang.git COMMIT OWNER/NAME 0.5.6.post2
# REF is a release tag (vX.Y.Z[.postN]; the version is read from it) or a commit together with the
# release it is (older releases set python/sglang/version.py at a commit; releases since the switch
# to setuptools-scm in Dec 2025 exist only as tags). Pre-releases are refused.
set -eu
USAGE='usage: refresh-release.sh SGLANG_GIT_DIR REF OWNER/NAME [VERSION]'
GIT_DIR=${1:?$USAGE}
REF=${2:?$USAGE}
REPO=${3:?$USAGE}
VERSION=${4:-${REF#v}}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../../data/sglang-flags"
case "$VERSION" in
  *rc* | *dev* | *a[0-9]* | *b[0-9]*) echo "refresh-release: $VERSION is a pre-release; give a release" >&2; exit 2 ;;
esac
line=$(echo "$VERSION" | sed -n 's/^\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\(\.post[0-9]*\)\{0,1\}$/\1/p')
if [ -z "$line" ]; then
  echo "refresh-release: '$VERSION' is not an SGLang release (X.Y.Z or X.Y.Z.postN); with a commit, give the version as the 4th argument" >&2
  exit 2
fi
if ! git --git-dir "$GIT_DIR" rev-parse -q --verify "$REF^{commit}" >/dev/null; then
  echo "refresh-release: $REF is neither a tag nor a commit of $GIT_DIR" >&2
  exit 2
fi
mkdir -p "$OUT"
python3 "$HERE/extract_sglang_flags.py" "$GIT_DIR" "$REF" "$VERSION" "$REPO" > "$OUT/$line.json.tmp"
mv "$OUT/$line.json.tmp" "$OUT/$line.json"
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
s = t["source"]
print("SGLang %s: %d flags from %s @ %s (%s, %s) -> %s" % (
    t["sglangVersion"], len(t["flags"]), s["repository"], s["commit"], s["date"], s["subject"], sys.argv[2]))
' "$OUT/$line.json" "data/sglang-flags/$line.json"

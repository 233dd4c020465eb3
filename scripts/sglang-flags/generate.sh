#!/bin/sh
# Regenerates data/sglang-flags/<version>.json: one table per SGLang minor release line (the newest
# release of each 0.4.x / 0.5.x line found in the clone), read at the commit that set
# python/sglang/version.py to that release, plus `main.json` from the clone's HEAD.
#   sh scripts/sglang-flags/generate.sh /path/to/sglang.git OWNER/NAME-of-the-clone
# Releases after the switch to setuptools-scm (Dec 2025) exist only as tags: each line's newest tag
# is read too; a clone without SGLang's tags yields the version.py releases and main.
set -eu
GIT_DIR=${1:?usage: generate.sh SGLANG_GIT_DIR REPOSITORY}
REPO=${2:?usage: generate.sh SGLANG_GIT_DIR REPOSITORY}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../../data/sglang-flags"
mkdir -p "$OUT"
git --git-dir "$GIT_DIR" log --format=%H -- python/sglang/version.py | while read -r c; do
  v=$(git --git-dir "$GIT_DIR" show "$c:python/sglang/version.py" 2>/dev/null | sed -n 's/^__version__ *= *"\(.*\)"/\1/p')
  case "$v" in ''|*rc*|*dev*) continue ;; esac
  line=$(echo "$v" | sed 's/^\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/')
  case "$line" in 0.[0-3].*) continue ;; esac
  echo "$line $v $c"
done | awk '!seen[$1]++' | while read -r line v c; do
  sh "$HERE/refresh-release.sh" "$GIT_DIR" "$c" "$REPO" "$v"
done
# Releases after the switch to setuptools-scm: the newest release tag of each X.Y.Z line.
git --git-dir "$GIT_DIR" tag -l 'v0.*' | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+(\.post[0-9]+)?$' | sort -V | awk -F. '{ line = $1 "." $2 "." $3; last[line] = $0 } END { for (l in last) print last[l] }' | sort -V | while read -r tag; do
  sh "$HERE/refresh-release.sh" "$GIT_DIR" "$tag" "$REPO"
done
python3 "$HERE/extract_sglang_flags.py" "$GIT_DIR" HEAD main "$REPO" > "$OUT/main.json.tmp"
mv "$OUT/main.json.tmp" "$OUT/main.json"

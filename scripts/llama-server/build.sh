#!/bin/sh
# Builds llama.cpp's own `llama-server` binary offline from the source node-llama-cpp ships (a git
# bundle of the release it pins, llama/gitRelease.bundle), with Debian's cmake, ninja and g++, CPU
# only. Prints each phase's wall time and the load, so the cost on this machine is measured, not
# guessed. The checkout and the build live under .tmp/llama-server/ (git-ignored).
#
#   sh scripts/llama-server/build.sh            clone, configure, build; prints the binary's path
#   JOBS=1 sh scripts/llama-server/build.sh     fewer compile jobs (default: the cores)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle="$root/node_modules/node-llama-cpp/llama/gitRelease.bundle"
info="$root/node_modules/node-llama-cpp/llama/llama.cpp.info.json"
work="$root/.tmp/llama-server"
jobs=${JOBS:-$(nproc)}
[ -f "$bundle" ] || { echo "llama-server build: $bundle is missing (run npm ci; node-llama-cpp is an optional dependency)" >&2; exit 2; }
for tool in git cmake ninja g++ flock; do
  command -v "$tool" >/dev/null || { echo "llama-server build: $tool is not installed (apt-get install cmake ninja-build g++ git util-linux)" >&2; exit 2; }
done
tag=$(sed -n 's/.*"tag": *"\([^"]*\)".*/\1/p' "$info")
now() { date +%s; }
phase() { echo "llama-server build: $1 $(( $(now) - $2 )) s (load $(cut -d' ' -f1-3 /proc/loadavg))"; }
# One build at a time: two slow tests that need the binary start this script together, and a second
# clone or configure into the same tree breaks the first. The later one waits, then finds it built.
mkdir -p "$root/.tmp"
exec 9>"$root/.tmp/llama-server.lock"
flock 9
t0=$(now)
if [ ! -d "$work/src/.git" ]; then
  rm -rf "$work/src"
  mkdir -p "$work"
  git -c advice.detachedHead=false clone --quiet "$bundle" "$work/src"
fi
commit=$(git -C "$work/src" rev-parse HEAD)
phase "checkout of llama.cpp $tag ($commit)" "$t0"
t1=$(now)
cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
  -DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >"$work/configure.log" 2>&1 ||
  { tail -20 "$work/configure.log" >&2; exit 1; }
phase configure "$t1"
t2=$(now)
ninja -C "$work/build" -j "$jobs" llama-server >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
phase "build ($jobs jobs, $(grep -c '^\[' "$work/build.log") steps)" "$t2"
phase total "$t0"
"$work/build/bin/llama-server" --version 2>&1 | head -2
echo "$work/build/bin/llama-server"

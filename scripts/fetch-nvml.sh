#!/usr/bin/env bash
# Puts NVIDIA's real NVML library and nvml.h under DIR (default .nvml, git-ignored) and prints the
# library path. Uses ../shared/tools/fetch-nvml when the workspace has it, else downloads the
# Debian non-free packages itself with apt (no root, no change to the system's apt setup).
# Without a GPU driver the real library's nvmlInit_v2 returns 9 (Driver Not Loaded): the tests use
# it for the binding's loading, symbol lookup and error paths.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(realpath -m "${1:-$here/../.nvml}")
shared="$here/../../shared/tools/fetch-nvml"
if [ -x "$shared" ]; then exec "$shared" "$dir"; fi
lib="$dir/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1"
if [ ! -e "$lib" ]; then
  command -v apt-get >/dev/null || { echo "fetch-nvml: apt-get not found; cannot download libnvidia-ml" >&2; exit 1; }
  apt=$(mktemp -d)
  trap 'rm -rf "$apt"' EXIT
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$dir"
  echo "deb http://deb.debian.org/debian bookworm non-free" > "$apt/sources.list"
  o=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache")
  apt-get "${o[@]}" -qq update >/dev/null 2>&1 || { echo "fetch-nvml: cannot reach deb.debian.org (offline?)" >&2; exit 1; }
  (cd "$apt" && apt-get "${o[@]}" -qq download libnvidia-ml1 libnvidia-ml-dev >/dev/null 2>&1) || { echo "fetch-nvml: download failed" >&2; exit 1; }
  for f in "$apt"/*.deb; do dpkg -x "$f" "$dir"; done
fi
echo "$lib"
echo "header: $dir/usr/include/nvml.h" >&2

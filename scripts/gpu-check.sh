#!/usr/bin/env bash
# One prepared run that answers the GPU questions of issue 19 on a machine with an NVIDIA GPU and the
# CUDA toolkit, but no Node.js and no network. Run from the repository root, with gpu-pack/ (made by
# `node scripts/gpu-pack.mjs`) next to it:
#
#   bash scripts/gpu-check.sh
#
# Steps (each logged with its elapsed time to $OUT/log.txt; finished steps are skipped on a rerun while
# .gpu-check/ survives):
#   1. unpack Node, dist/ + node_modules, and the llama.cpp sources of node-llama-cpp's bundle;
#   2. build llama.cpp (libllama, ggml, the CPU backend, ggml-cuda for this GPU's architecture only,
#      llama-bench) with all cores;
#   3. build tessera's addon against it with plain cmake (Node-API headers from node-api-headers);
#   4. `tessera doctor --json`; the 1B shape at Q4_0 and F16, synthesized by `tessera models make`
#      beside the build of step 2 (and the 8B shape at Q4_0 after step 5 when time is left);
#   5. scripts/gpu-measure.mjs: decode tokens/s against llama-bench, first token at 16/256/1024 prompt
#      tokens, best-of-8 in one batch against one sample, logits capture against off, abort latency in a
#      4k-token prefill. Results go to $OUT/results.json and $OUT/results.md as each is measured.
#
# GPU_CHECK_DRY_RUN=1 runs every step on the CPU of this machine with tiny sizes (no CUDA build, the
# tiny model instead of the 1B shape): the test of the packing and of this script.
# GPU_CHECK_STAGE=build stops after the builds and the models (a rerun skips what is done while .gpu-check/ is kept).
# Other knobs: OUT (default .gpu-check/out), GPU_CHECK_JOBS (default: all cores), GPU_CHECK_BUDGET_S
# (default 540: measuring stops starting new steps after it), GPU_CHECK_CUDA_ARCH (default: the GPU's).
set -uo pipefail

# The whole script is one function, read before it runs: editing this file during a run cannot derail it.
# Synthesizes the models with `tessera models make` (single-threaded JavaScript, so it runs beside the
# llama.cpp build); appends "path|label" entries to $work/models.list.
make_models() {
  local node=$1 models_dir="$work/models" wanted entry preset type file
  mkdir -p "$models_dir"
  : >"$work/models.list"
  if [ "$dry" = 1 ]; then wanted="tiny:q4_0 tiny:f16"; else wanted="llama-3.2-1b:q4_0 llama-3.2-1b:f16"; fi
  for entry in $wanted; do
    preset=${entry%%:*} type=${entry##*:}
    file="$models_dir/$preset-$type.gguf"
    if [ ! -f "$file" ]; then
      log "making $preset $type"
      # In the background with a trap, so that die() stopping this subshell stops the synthesis too.
      "$node" dist/cli/main.js models make "$preset" --type "$type" --out "$file" >"$OUT/make-$preset-$type.txt" 2>&1 &
      local child=$!
      trap 'kill "$child" 2>/dev/null; exit 1' TERM
      wait "$child" || { log "models make $preset $type failed: $(tail -3 "$OUT/make-$preset-$type.txt")"; continue; }
      log "made $preset $type"
    fi
    if [ -s "$work/models.list" ]; then printf ',' >>"$work/models.list"; fi
    printf '%s|%s %s' "$file" "$preset" "$type" >>"$work/models.list"
  done
}

main() {

root=$(pwd)
pack=${GPU_CHECK_PACK:-$root/gpu-pack}
work=${GPU_CHECK_WORK:-$root/.gpu-check}
dry=${GPU_CHECK_DRY_RUN:-0}
OUT=${OUT:-$work/out}
jobs=${GPU_CHECK_JOBS:-$(nproc)}
budget=${GPU_CHECK_BUDGET_S:-540}
[ "$dry" = 1 ] && budget=${GPU_CHECK_BUDGET_S:-3600}
started=$(date +%s)
mkdir -p "$work" "$OUT"

log() { echo "[gpu-check +$(($(date +%s) - started))s] $*" | tee -a "$OUT/log.txt"; }
# Stops the background model synthesis too (its own process id only), so a failed run ends at once.
die() { log "FAILED: $*"; [ -n "${models_pid:-}" ] && kill "$models_pid" 2>/dev/null; exit 1; }
# xz may be missing on a minimal image; Python's lzma reads the same files.
unxz_to() {
  if command -v xz >/dev/null; then xz -dc "$1" >"$2"
  else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi
}
untar_xz() {
  if command -v xz >/dev/null; then xz -dc "$1" | tar -xf - -C "$2"
  else python3 -c 'import sys,tarfile; tarfile.open(sys.argv[1],"r:xz").extractall(sys.argv[2])' "$1" "$2"; fi
}

log "start: dry run=$dry, jobs=$jobs, budget=${budget}s, pack=$pack, work=$work, out=$OUT"
[ -f "$pack/manifest.json" ] || die "$pack/manifest.json is missing: run \`node scripts/gpu-pack.mjs\` and carry gpu-pack/."
{
  echo "## environment"; uname -a; nproc; free -g 2>/dev/null | head -2
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,memory.free --format=csv
  command -v nvcc >/dev/null && nvcc --version | tail -2
  cmake --version | head -1; c++ --version | head -1
} >"$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt" >>"$OUT/log.txt"

# 1. Unpack.
node="$work/node"
if [ ! -x "$node" ]; then unxz_to "$pack/node.xz" "$node.tmp" && chmod +x "$node.tmp" && mv "$node.tmp" "$node" || die "could not unpack Node"; fi
"$node" --version >/dev/null || die "the carried Node does not run here"
log "node $("$node" --version)"
app="$work/app"
if [ ! -f "$app/.complete" ]; then
  rm -rf "$app" && mkdir -p "$app" && untar_xz "$pack/runtime.tar.xz" "$app" || die "could not unpack runtime.tar.xz"
  touch "$app/.complete"
fi
# The scripts are tracked files: always this checkout's (a rerun after an edit uses the edit).
rm -rf "$app/scripts" && cp -r "$root/scripts" "$app/scripts"
llama="$work/llama"
if [ ! -f "$llama/.complete" ]; then
  rm -rf "$llama" && untar_xz "$pack/llama.tar.xz" "$work" && touch "$llama/.complete" || die "could not unpack llama.tar.xz"
fi
log "unpacked: $(cat "$llama/TESSERA-SOURCE.txt")"
(cd "$app" && make_models "$node") &
models_pid=$!

# 2. llama.cpp with this GPU's architecture only (sm_90 on an H200): one architecture keeps ggml-cuda's
# build to minutes. Backends as loadable modules, as in node-llama-cpp's builds (the addon registers them
# with ggml_backend_load_all_from_path); ggml refuses GGML_NATIVE with that, and without it the CPU
# backend targets AVX2/FMA/F16C, which is all the CPU does when every layer is on the GPU.
cuda=ON
arch=${GPU_CHECK_CUDA_ARCH:-}
if [ "$dry" = 1 ]; then cuda=OFF
elif [ -z "$arch" ]; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  [ -n "$arch" ] || arch=90
fi
if [ "$cuda" = ON ]; then
  # CUDA installs often leave nvcc off PATH; CMake finds the toolkit from nvcc.
  if ! command -v nvcc >/dev/null; then
    local candidate
    for candidate in /usr/local/cuda/bin /usr/local/cuda-13*/bin /opt/cuda/bin; do
      [ -x "$candidate/nvcc" ] && { PATH="$candidate:$PATH"; break; }
    done
  fi
  command -v nvcc >/dev/null || die "nvcc not found (looked on PATH, /usr/local/cuda*/bin, /opt/cuda/bin): the CUDA toolkit is needed"
  local toolkit
  toolkit=$(dirname "$(dirname "$(command -v nvcc)")")
  # ggml-cuda links cuBLAS; CMake's own message for its absence comes late and reads as a link error.
  find "$toolkit" /usr/include /usr/local/include -maxdepth 4 -name cublas_v2.h 2>/dev/null | grep -q . \
    || die "cublas_v2.h not found under $toolkit: install cuBLAS (NVIDIA's package libcublas-dev-13-0)"
  log "CUDA toolkit: $toolkit ($(nvcc --version | tail -1))"
fi
build="$work/llama-build"
if [ ! -f "$build/.complete" ]; then
  log "configuring llama.cpp (CUDA=$cuda${arch:+, sm_$arch})"
  cmake -S "$llama" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON \
    -DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_OPENMP=OFF -DGGML_CUDA=$cuda \
    ${arch:+-DCMAKE_CUDA_ARCHITECTURES=$arch} -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_COMMON=ON \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_MTMD=OFF >"$OUT/llama-configure.txt" 2>&1 \
    || { tail -30 "$OUT/llama-configure.txt"; die "llama.cpp configure failed (see llama-configure.txt)"; }
  targets="llama ggml ggml-base ggml-cpu llama-bench"
  [ "$cuda" = ON ] && targets="$targets ggml-cuda"
  log "building $targets with -j$jobs"
  # shellcheck disable=SC2086
  cmake --build "$build" -j"$jobs" --target $targets >"$OUT/llama-build.txt" 2>&1 \
    || { tail -30 "$OUT/llama-build.txt"; die "llama.cpp build failed (see llama-build.txt)"; }
  touch "$build/.complete"
fi
libraries="$build/bin"
log "llama.cpp built: $(ls "$libraries" | tr '\n' ' ')"

# 3. The addon, with plain cmake: cmake-js in Node-API mode only adds the node-api-headers include folder.
addon_build="$work/addon-build"
if [ ! -f "$addon_build/.complete" ]; then
  so() { find "$libraries" -maxdepth 1 -name "$1" | head -1; }
  cmake -S "$root/native" -B "$addon_build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_JS_INC="$app/node_modules/node-api-headers/include" -DCMAKE_JS_SRC= -DCMAKE_JS_LIB= \
    -DLLAMA_INCLUDE_DIR="$llama/include" -DGGML_INCLUDE_DIR="$llama/ggml/include" \
    -DNODE_ADDON_API_DIR="$app/node_modules/node-addon-api" \
    "-DLLAMA_LIBRARIES=$(so 'libllama.so');$(so 'libggml.so');$(so 'libggml-base.so')" \
    -DLLAMA_LIBRARIES_DIR="$libraries" -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$addon_build/Release" \
    >"$OUT/addon-build.txt" 2>&1 && cmake --build "$addon_build" -j"$jobs" >>"$OUT/addon-build.txt" 2>&1 \
    || { tail -30 "$OUT/addon-build.txt"; die "the addon build failed (see addon-build.txt)"; }
  touch "$addon_build/.complete"
fi
addon=$(find "$addon_build" -name tessera.node | head -1)
[ -n "$addon" ] || die "tessera.node was not built"
export TESSERA_NATIVE_ADDON="$addon" TESSERA_LLAMA_LIBRARIES_DIR="$libraries"
log "addon: $addon"
if [ "${GPU_CHECK_STAGE:-all}" = build ]; then wait "$models_pid"; log "GPU_CHECK_STAGE=build: stopping after the builds and the models"; exit 0; fi

# 4. Doctor; the models (synthesized here, beside the build: a 1B F16 file is 2.5 GB, too big to carry).
cd "$app" || die "no $app"
"$node" dist/cli/main.js doctor --json >"$OUT/doctor.json" 2>"$OUT/doctor-stderr.txt" || log "doctor failed: $(tail -3 "$OUT/doctor-stderr.txt")"
"$node" dist/cli/main.js doctor >"$OUT/doctor.txt" 2>&1
log "doctor: $(grep -m1 'gpuLayers would use' "$OUT/doctor.txt")"
wait "$models_pid"
local models models_dir="$work/models"
models=$(cat "$work/models.list" 2>/dev/null)
log "models: $models"

# 5. Measure; the deadline leaves time for the 8B shape only when the rest was fast.
deadline_ms=$(( (started + budget) * 1000 ))
threads=$(nproc)
[ "$dry" = 1 ] && threads=1
GPU_CHECK_OUT="$OUT" GPU_CHECK_MODELS="$models" GPU_CHECK_LLAMA_BENCH="$libraries/llama-bench" \
  GPU_CHECK_DEADLINE_MS=$deadline_ms GPU_CHECK_DRY_RUN=$dry GPU_CHECK_THREADS=$threads \
  "$node" scripts/gpu-measure.mjs 2>&1 | tee -a "$OUT/log.txt"
local status=${PIPESTATUS[0]}
if [ "$dry" != 1 ] && [ $(( $(date +%s) - started )) -lt $(( budget - 200 )) ]; then
  file="$models_dir/llama-3.1-8b-q4_0.gguf"
  log "time left: making and measuring the 8B shape at Q4_0"
  if [ -f "$file" ] || "$node" dist/cli/main.js models make llama-3.1-8b --type q4_0 --out "$file" >"$OUT/make-8b.txt" 2>&1; then
    mv "$OUT/results.json" "$OUT/results-1b.json"; mv "$OUT/results.md" "$OUT/results-1b.md"
    GPU_CHECK_OUT="$OUT" GPU_CHECK_MODELS="$file|llama-3.1-8b q4_0" GPU_CHECK_LLAMA_BENCH="$libraries/llama-bench" \
      GPU_CHECK_DEADLINE_MS=$deadline_ms GPU_CHECK_THREADS=$threads "$node" scripts/gpu-measure.mjs 2>&1 | tee -a "$OUT/log.txt"
    mv "$OUT/results.json" "$OUT/results-8b.json"; mv "$OUT/results.md" "$OUT/results-8b.md"
  fi
fi
log "done (measure exit $status); results in $OUT"
exit "$status"
}

main "$@"

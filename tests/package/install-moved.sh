#!/usr/bin/env bash
# The installed package works from another place on another machine:
# `cmake --install` to a temporary prefix, MOVE the prefix, then check that
#  - only the public header is installed (no compiler or LLVM headers),
#  - the exported CMake files name no LLVM/zlib/tinfo library and no
#    absolute path of this machine,
#  - libgemmgen.so neither needs libLLVM nor exports llvm:: symbols,
#  - tools/example configures, builds and links against the moved prefix in
#    a clean environment (no LLVM include or CMake directories visible),
#  - and runs: exit 0 with a GPU, exit 2 "no CUDA driver/GPU found" without.
# Usage: install-moved.sh BUILD_DIR SOURCE_DIR [CMAKE]
set -uo pipefail
BUILD=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd); CMAKE=${3:-cmake}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

"$CMAKE" --install "$BUILD" --prefix "$W/stage" > "$W/install.log" 2>&1 \
  || { cat "$W/install.log"; echo "FAIL: cmake --install"; exit 1; }
mv "$W/stage" "$W/moved"
P=$W/moved

headers=$(cd "$P/include" && find . -type f | sort | tr '\n' ' ')
[ "$headers" = "./gemmgen/gemmgen.h " ] && ok "installed headers: $headers" \
  || fail "installed headers are '$headers' (want only ./gemmgen/gemmgen.h)"

cfg=$(cat "$P"/lib/cmake/gemmgen/*.cmake)
bad=$(grep -nE 'LLVM|llvm|tinfo|libz|[";]z[";]|gemmgen_compiler|gemmgen_runtime' \
        "$P"/lib/cmake/gemmgen/*.cmake | grep -vE '^[^:]*:[0-9]+:\s*#')
[ -z "$bad" ] && ok "exported CMake files name no LLVM/zlib/tinfo/internal library" \
  || fail "exported CMake files name internal libraries:"$'\n'"$bad"
# Absolute paths: every path must be relative to the package (${_IMPORT_PREFIX}).
abs=$(grep -nE '(^|[";( ])/[A-Za-z]' "$P"/lib/cmake/gemmgen/*.cmake | grep -v '^\s*#')
for d in "$SRC" "$BUILD" "$W/stage"; do
  abs+=$(grep -n -F "$d" "$P"/lib/cmake/gemmgen/*.cmake)
done
[ -z "$abs" ] && ok "exported CMake files have no absolute path" \
  || fail "absolute paths in the exported CMake files:"$'\n'"$abs"
grep -q 'INTERFACE_LINK_LIBRARIES "CUDA::toolkit;CUDA::nvrtc"' "$P"/lib/cmake/gemmgen/gemmgenTargets.cmake \
  && ok "gemmgen::runtime links CUDA::toolkit;CUDA::nvrtc only" \
  || fail "unexpected link interface: $(grep -h INTERFACE_LINK_LIBRARIES "$P"/lib/cmake/gemmgen/*.cmake)"

lib=$(ls "$P"/lib/libgemmgen.so.* 2>/dev/null | head -1)
# A sanitizer build's library needs the sanitizer runtime in every program
# that loads it: the package is a release artefact, so skip (ctest: 77).
if [ -n "$lib" ] && nm -D "$lib" | grep -qE ' U __(asan|ubsan|tsan|msan)_'; then
  echo "skip: $lib is a sanitizer build (the package test runs on release builds)"; exit 77
fi
if [ -z "$lib" ]; then
  fail "no lib/libgemmgen.so.* installed"
else
  needed=$(readelf -d "$lib" | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')
  [[ "$needed" == *LLVM* ]] && fail "$lib needs $needed" || ok "$(basename "$lib") needs: $needed"
  nllvm=$(nm -DC --defined-only "$lib" | grep -c ' llvm::')
  [ "$nllvm" -eq 0 ] && ok "no llvm:: symbols exported" || fail "$nllvm llvm:: symbols exported"
  nother=$(nm -DC --defined-only "$lib" | grep -vE ' (gemmgen::|GEMMGEN_)' | grep -vc ' A ')
  [ "$nother" -eq 0 ] && ok "exports namespace gemmgen only" \
    || fail "$nother symbols outside namespace gemmgen exported"
  readelf -d "$lib" | grep -qE "RPATH|RUNPATH" && fail "installed library has an RPATH" || true
fi

# A clean environment: no LLVM directories on any search path.
env -i PATH=/usr/local/cuda/bin:/usr/bin:/bin HOME="$W" \
  "$CMAKE" -S "$SRC/tools/example" -B "$W/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$P" -DCMAKE_IGNORE_PREFIX_PATH="/usr/lib/llvm-16;/usr/lib/cmake/llvm-16" \
  > "$W/configure.log" 2>&1 || { cat "$W/configure.log"; fail "configuring tools/example"; }
if env -i PATH=/usr/local/cuda/bin:/usr/bin:/bin HOME="$W" \
     "$CMAKE" --build "$W/example" -- -v > "$W/build.log" 2>&1; then
  if grep -qE 'llvm|LLVM|-ltinfo|-lz\b|libz\.' "$W/build.log"; then
    fail "the example's build lines mention LLVM/zlib/tinfo:"; grep -E 'llvm|LLVM|tinfo' "$W/build.log"
  else
    ok "tools/example built against the moved prefix (no LLVM on its compile or link lines)"
  fi
else
  cat "$W/build.log"; fail "building tools/example against the moved prefix"
fi

if [ -x "$W/example/gemmgen_example" ]; then
  out=$("$W/example/gemmgen_example" "$SRC/specs/sm90/05_fast_f16.yaml" 256 264 64 2>&1); rc=$?
  if ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
    [ $rc -eq 0 ] && ok "example ran on the GPU: $out" || fail "example on the GPU: rc $rc: $out"
  else
    [ $rc -eq 2 ] && [[ "$out" == *"no CUDA driver/GPU found"* ]] \
      && ok "example starts without a GPU and says so (rc 2)" \
      || fail "example without a GPU: rc $rc (want 2): $out"
  fi
fi
if [ -x "$W/example/gemmgen_example" ]; then
  # The library's kernel choice: built in, nothing read from the source tree.
  out=$(cd "$W" && "$W/example/gemmgen_example" auto 16 4096 4096 2>&1); rc=$?
  [[ "$out" == *"chosen: decode_d16 64x16 tile"*"for 16x4096x4096"* ]] \
    && ok "the moved library chooses a kernel: $(printf '%s' "$out" | grep chosen:)" \
    || fail "example auto: rc $rc: $out"
fi
# `gemmgen run tuned` reads the tuned defaults installed beside bin/ (not the
# source tree's, not the working directory's).
[ -f "$P/share/gemmgen/tuned/defaults.yaml" ] && ok "tuned defaults installed in share/gemmgen/tuned" \
  || fail "no share/gemmgen/tuned/defaults.yaml in the package"
out=$(cd "$W" && env -u GEMMGEN_TUNED_DEFAULTS GEMMGEN_CACHE_DIR="$W/cache" \
      "$P/bin/gemmgen" run tuned --m 4096 --n 4096 --k 4096 2>&1)
[[ "$out" == *"tuned defaults: $P/share/gemmgen/tuned/nvidia_h200/f16_4096x4096x4096.yaml"* ]] \
  && ok "the moved gemmgen reads its installed tuned defaults" \
  || fail "gemmgen run tuned from the moved prefix: $out"
[ $fails -eq 0 ] && echo "package works from a moved prefix" || { echo "$fails check(s) failed"; exit 1; }

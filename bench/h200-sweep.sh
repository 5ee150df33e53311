#!/usr/bin/env bash
# The issue-13 sweep: shapes users run, f16 and bf16, the fixed spec, the
# `tuned` choice (the tuned DB's spec for the exact shape, else the cost
# model's: runtime/lib/KernelChoice.cpp) and cuBLAS in one device command. Each `gemmgen bench`
# process times one spec against cuBLAS on the same inputs, so every ratio
# (cuBLAS time / gemmgen time) is same-run: the fixed spec once per dtype
# over all shapes (--shapes), `tuned` once per shape and dtype (it picks
# one spec per shape).
#   usage (device, nvidia-h200, from the repository root):
#     bash bench/h200-sweep.sh CARRY [ROUNDS]      CARRY: a folder holding gemmgen
#   env: BUDGET (s, default 480: no new tuned run starts after it),
#        FIXED_F16 / FIXED_BF16 (default specs/sm90/05_fast_f16.yaml / 06_fast_bf16.yaml)
# Time (estimate, not yet run): per bench process ~1.5 s of start (context,
# cuBLAS, cached cubins) plus per shape ~0.3 s (small) to ~2 s (16384^3:
# verification, warm-up and 2 x 15 rounds of ~12 ms launches); 2 fixed
# runs (~40 s each) + 82 tuned runs (~2-3 s each) = 4-5 min. NVRTC adds
# ~1 s per spec not yet in the carried cache; BUDGET caps the tuned runs.
# Output: $OUT/sweep-summary.txt (the table, the geo-means, the worst
# shape), $OUT/sweep-fixed-{f16,bf16}.json, $OUT/sweep-logs.tgz (every log
# and JSON); the summary is printed last.
set -u
C=${1:-build-carry}; ROUNDS=${2:-15}; BUDGET=${BUDGET:-480}
G=$C/gemmgen
[ -x "$G" ] || { echo "error: no gemmgen in '$C' (give the carried build folder)"; exit 2; }
OUT=${OUT:-/tmp/gemmgen-out}; S=$OUT/sweep; rm -rf "$S"; mkdir -p "$S"
case $C in /*) export GEMMGEN_CACHE_DIR=$C/cache ;; *) export GEMMGEN_CACHE_DIR=$PWD/$C/cache ;; esac
# `tuned`: this checkout's DB (the binary's source tree is another machine's).
export GEMMGEN_TUNED_DEFAULTS=$PWD/specs/tuned/defaults.yaml
FIXED_F16=${FIXED_F16:-specs/sm90/05_fast_f16.yaml}; FIXED_BF16=${FIXED_BF16:-specs/sm90/06_fast_bf16.yaml}

# D[M,N] = A[M,K] . B[N,K]^T: M = tokens, N = output features, K = input
# features. Model dimensions from the published configs:
#   Llama-3 8B:  hidden 4096, FFN 14336, 32 heads, 8 KV heads, head dim 128
#     QKV N = (32 + 2*8)*128 = 6144, K = 4096; O 4096 x 4096;
#     gate+up (fused) N = 2*14336 = 28672, K = 4096; down N = 4096, K = 14336
#   Llama-3 70B: hidden 8192, FFN 28672, 64 heads, 8 KV heads, head dim 128
#     QKV N = (64 + 2*8)*128 = 10240, K = 8192; O 8192 x 8192;
#     gate+up N = 57344, K = 8192; down N = 8192, K = 28672
#   Mixtral 8x7B: attention as Llama-3 8B; 8 experts of FFN 14336, top-2,
#     so an expert sees M = tokens*2/8: gate+up N = 28672, K = 4096; down N = 4096, K = 14336
#   DeepSeek-V3: hidden 7168, MLA (q_lora 1536, kv_lora 512, rope 64, nope
#     128, v 128, 128 heads); q_a + kv_a fused N = 1536 + 512 + 64 = 2112,
#     K = 7168; q_b N = 128*(128+64) = 24576, K = 1536; kv_b N =
#     128*(128+128) = 32768, K = 512; O N = 7168, K = 128*128 = 16384; dense
#     FFN 18432 (gate+up N = 36864, K = 7168; down N = 7168, K = 18432);
#     256 experts of FFN 2048, top-8, so an expert sees M = tokens*8/256:
#     gate+up N = 4096, K = 7168; down N = 7168, K = 2048
# A subset of M = 1, 16, 128, 1024, 4096, 16384 per projection, so that
# every M and every projection kind appears and the run fits the budget.
SHAPES="
1x6144x4096         llama3-8b-qkv-M1
4096x6144x4096      llama3-8b-qkv-M4096
16x4096x4096        llama3-8b-o-M16
1024x4096x4096      llama3-8b-o-M1024
128x28672x4096      llama3-8b-gateup-M128
16384x28672x4096    llama3-8b-gateup-M16384
1x4096x14336        llama3-8b-down-M1
4096x4096x14336     llama3-8b-down-M4096
16x10240x8192       llama3-70b-qkv-M16
16384x10240x8192    llama3-70b-qkv-M16384
128x8192x8192       llama3-70b-o-M128
4096x8192x8192      llama3-70b-o-M4096
1x57344x8192        llama3-70b-gateup-M1
1024x57344x8192     llama3-70b-gateup-M1024
16x8192x28672       llama3-70b-down-M16
4096x8192x28672     llama3-70b-down-M4096
4x28672x4096        mixtral-expert-gateup-16tok
1024x28672x4096     mixtral-expert-gateup-4096tok
32x4096x14336       mixtral-expert-down-128tok
4096x4096x14336     mixtral-expert-down-16384tok
1x2112x7168         dsv3-qkv-a-M1
4096x2112x7168      dsv3-qkv-a-M4096
1024x24576x1536     dsv3-q-b-M1024
16384x32768x512     dsv3-kv-b-M16384
16x7168x16384       dsv3-o-M16
4096x7168x16384     dsv3-o-M4096
128x36864x7168      dsv3-dense-gateup-M128
1024x7168x18432     dsv3-dense-down-M1024
512x4096x7168       dsv3-expert-gateup-16384tok
512x7168x2048       dsv3-expert-down-16384tok
512x512x512         square-512
1024x1024x1024      square-1024
2048x2048x2048      square-2048
4096x4096x4096      square-4096
8192x8192x8192      square-8192
16384x16384x16384   square-16384
3000x5000x2048      odd-3000x5000x2048
4096x4096x4104      odd-k-residue-4104
8191x8192x8192      odd-m-8191
7168x2048x4096      odd-7168x2048x4096
256x14336x4096      odd-256x14336x4096
"
# The validation set: shapes in no data the cost model was fitted to
# (bench/model/fit_cost_model.py) and in no tune DB, so `tuned` runs the
# model's choice there; the summary compares it with the fixed spec.
VALIDATION="
1x11008x4096        val-llama2-7b-gateup-M1
8x14336x4096        val-M8-14336x4096
48x15360x5120       val-llama2-13b-qkv-M48
64x4096x4096        val-M64-4096x4096
128x4096x11008      val-llama2-7b-down-M128
256x7168x7168       val-256x7168x7168
384x12288x4096      val-384x12288x4096
768x3072x3072       val-768x3072x3072
1536x1536x1536      val-square-1536
2048x5120x5120      val-2048x5120x5120
2304x4608x4608      val-2304x4608x4608
3072x768x3072       val-3072x768x3072
6144x3072x12288     val-6144x3072x12288
12288x12288x1024    val-12288x12288x1024
"
# N % 8 != 0, packed: D's rows are not 16-byte multiples, so D takes the
# runtime's staging path (refused before 2026-12-01); fixed pass only.
REFUSED="8191x8191x8192 odd-n-8191-packed"
printf '%s\n%s\n%s\n' "$SHAPES" "$VALIDATION" "$REFUSED" | awk 'NF == 2' > "$S/shapes.txt"
list=$(awk '{print $1}' "$S/shapes.txt" | paste -sd, -)

{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
  "$G" --version; date -u +%FT%TZ  # the binary's build (the device copy's git metadata may be stale)
  echo "rounds $ROUNDS, budget $BUDGET s, fixed $FIXED_F16 / $FIXED_BF16"; } | tee "$S/info.txt"
start=$(date +%s)
for dt in f16 bf16; do
  spec=$FIXED_F16; [ $dt = bf16 ] && spec=$FIXED_BF16
  timeout 300 "$G" bench "$spec" --dtype $dt --shapes "$list" --rounds "$ROUNDS" \
    --json "$S/fixed-$dt.json" > "$S/fixed-$dt.log" 2>&1
  echo "fixed $dt: rc=$? $(( $(date +%s) - start )) s"
done
skipped=0
while read -r shape label; do
  [ "$label" = "${REFUSED#* }" ] && continue
  IFS=x read -r m n k <<< "$shape"
  for dt in f16 bf16; do
    if [ $(( $(date +%s) - start )) -ge "$BUDGET" ]; then skipped=$((skipped + 1)); continue; fi
    timeout 90 "$G" bench tuned --dtype $dt --m "$m" --n "$n" --k "$k" --rounds "$ROUNDS" \
      --json "$S/tuned-$dt-$shape.json" > "$S/tuned-$dt-$shape.log" 2>&1 \
      || echo "tuned $dt $shape: rc=$? ($(tail -1 "$S/tuned-$dt-$shape.log" | cut -c1-120))"
  done
done < "$S/shapes.txt"
echo "tuned runs done at $(( $(date +%s) - start )) s; $skipped not started (budget $BUDGET s)"
cp "$S/fixed-f16.json" "$OUT/sweep-fixed-f16.json" 2>/dev/null
cp "$S/fixed-bf16.json" "$OUT/sweep-fixed-bf16.json" 2>/dev/null
python3 bench/sweep_summary.py "$S" > "$S/summary.txt" 2>&1; rc=$?
cp "$S/summary.txt" "$OUT/sweep-summary.txt"
tar czf "$OUT/sweep-logs.tgz" -C "$OUT" sweep && rm -rf "$S"
cat "$OUT/sweep-summary.txt"
exit $rc

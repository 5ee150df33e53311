export GEMMGEN_CACHE_DIR=$PWD/build-carry/cache
for rep in 1 2; do for bg in 0 1; do for sp in 05_fast_f16 06_fast_bf16; do
 echo "rep $rep balanced=$bg $sp"; GEMMGEN_BALANCED_GRID=$bg build-carry/gemmgen bench specs/sm90/$sp.yaml --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 | grep -E '^ *[0-9]+x' | cut -c1-100
done; done; done

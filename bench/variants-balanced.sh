#!/usr/bin/env bash
# Variants with the balanced persistent grid, 4096^3 and 8192^3, f16 and bf16, twice.
export GEMMGEN_CACHE_DIR=$PWD/build-carry/cache
for rep in 1 2; do for v in base cluster2 group16 cluster2_group16 d3_chunk256 cluster2_d3_chunk256; do for dt in f16 bf16; do
  echo "rep $rep $v $dt"; build-carry/gemmgen bench bench/variants/$v.yaml --dtype $dt --shapes 4096x4096x4096,8192x8192x8192 --rounds 20 2>&1 | grep -E '^ *[0-9]+x' | cut -c1-100
done; done; done

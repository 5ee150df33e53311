set -u
W=.whl
export GEMMGEN_CACHE_DIR=/tmp/ggc-repro; rm -rf $GEMMGEN_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/gg-site "$W"/gemmgen-*.whl || exit 1
export PYTHONPATH=/tmp/gg-site
timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests > $OUT/full.log 2>&1; tail -1 $OUT/full.log
grep -n "assert (0 > 0)" $OUT/full.log | head -2
python3 - <<'PY' > $OUT/after.txt 2>&1
import gemmgen, pathlib, struct, glob
k = gemmgen.compile(pathlib.Path("specs/sm90/05_fast_f16.yaml"))
print("registers", k.registers, "from_cache", k.from_cache)
print("LOG>>>", k.nvrtc_log[:4000], "<<<LOG")
for f in sorted(glob.glob("/tmp/ggc-repro/*.cubin")):
    d = open(f, "rb").read(); lb = struct.unpack_from("<I", d, 12)[0]
    log = d[96:96 + lb].decode(errors="replace")
    if "gemm_sm90_fast_f16" in log:
        print("==", f[-24:], "log bytes", lb, "entries", log.count("Compiling entry"), "used", log.count("Used "))
PY
head -c 3000 $OUT/after.txt; grep "^==" $OUT/after.txt

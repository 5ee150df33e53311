export PYTHONPATH=/tmp/gg-site GEMMGEN_CACHE_DIR=/tmp/ggc-probe
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/gg-site .whl/gemmgen-*.whl
cat /usr/local/cuda/version.json 2>/dev/null | head -20 | grep -A2 '"cuda_nvrtc"\|"cuda"' | head -8
ls -la /usr/local/cuda/lib64/libnvrtc.so* 2>&1 | head -3
ldd /tmp/gg-site/gemmgen/_core*.so | grep -i nvrtc
for mode in plain torch; do for opt in none ptxas-options; do
python3 - "$mode" "$opt" <<'PY'
import sys, pathlib
mode, opt = sys.argv[1], sys.argv[2]
if mode == "torch":
    import torch
import gemmgen, os
opts = ["--ptxas-options=-v"] if opt == "ptxas-options" else []
for spec in ["05_fast_f16", "06_fast_bf16", "13_fast_e4m3"]:
    k = gemmgen.compile(pathlib.Path(f"specs/sm90/{spec}.yaml"), cache=False, nvrtc_options=opts)
    print(mode, opt, spec, "registers", k.registers, "log has ptxas:", "ptxas info" in k.nvrtc_log, len(k.nvrtc_log))
maps = [l.split()[-1] for l in open("/proc/self/maps") if "nvrtc" in l]
print(mode, "nvrtc loaded:", sorted(set(maps))[:4])
PY
done; done

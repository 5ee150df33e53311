// The blockwise chooser's picks at 18 shapes (chooseFp8Kernel): run against the library before and
// after a refit of kFp8BlockFamilies (2026-12-04: bench/results/2026-12-04_blockwise_warps4_h200/
// picks-before.txt, picks-after.txt). Build: g++ -std=c++17 -I runtime/include -I compiler/include
//   bench/model/blockwise_picks.cpp -Lbuild/runtime -lgemmgen -Wl,-rpath,$PWD/build/runtime
#include "gemmgen/gemmgen.h"
#include <cstdio>
using namespace gemmgen;
int main() {
  long long shapes[][3] = {{4096,7168,2048},{4096,4096,7168},{4096,7168,18432},{4096,2112,7168},{128,7168,2048},{128,4096,7168},{128,7168,18432},{128,2112,7168},{512,7168,2048},{1024,4096,7168},{256,7168,18432},{2048,2112,7168},{64,7168,2048},{16,7168,18432},{300,7168,2048},{1001,1000,640},{2048,7168,2048},{768,4096,7168}};
  Fp8Problem p; p.blockwise = true;
  for (auto &s : shapes) { auto c = chooseFp8Kernel(s[0], s[1], s[2], p); printf("%lldx%lldx%lld %s\n", s[0], s[1], s[2], c ? c->name.c_str() : c.status().message().c_str()); }
}

//===- KernelChoice.cpp - A kernel for a shape, chosen by a cost model ----===//
//
// Tile families (16-bit: the fixed default and the smaller tiles tuning
// found for small shapes; fp8: the per-tensor and blockwise specs measured on
// the DeepSeek-V3 shapes), each with K cut into 1-8 slices, ranked by a model
// of persistent tiles on 132 SMs whose constants were fitted to the H200's
// measurements (bench/model/fit_cost_model.py: 372 points of the sweeps, the
// per-shape tunes, the split-K and 128x192 runs; rms log error 0.081; the fp8
// families' k-block times by bench/model/fit_fp8_model.py on 282 fp8 points).
// docs/RUNTIME.md "Choosing a kernel for a shape" says what it sees and what
// it does not.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"
#include "gemmgen/KernelPlan.h"
#include "gemmgen/device/tile_schedule.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

using namespace gemmgen;

namespace {

struct TileFamily {
  const char *name;
  int tileM, tileN, tileK, consumers, depth, group, mmaInFlight;
  const char *chunkN;     ///< epilogue.chunk_n for a 16-bit D ("" : the printer's default)
  double microsPerKBlock; ///< one k-block (tileK deep) of one tile on one SM (fitted)
  int clusterM = 1;       ///< CTAs along M sharing B by multicast
  bool colMajorD = false; ///< layout.d: col (computes D^T = B·A^T for a row-major D)
  bool pingPong = false;  ///< scheduler.consumers: pingpong (each consumer its own tiles)
  int ctasPerSm = 1;      ///< scheduler.ctas_per_sm (consumerRegisters: 216 for 2)
  int l2Promotion = 0;    ///< pipeline.l2_promotion (0: the runtime's rule)

  // The optional fields by name: {"decode", 64, 16, ...}.withColMajorD().withCtasPerSm(2).
  constexpr TileFamily withClusterM(int m) const { TileFamily f = *this; f.clusterM = m; return f; }
  constexpr TileFamily withColMajorD() const { TileFamily f = *this; f.colMajorD = true; return f; }
  constexpr TileFamily withPingPong() const { TileFamily f = *this; f.pingPong = true; return f; }
  constexpr TileFamily withCtasPerSm(int n) const { TileFamily f = *this; f.ctasPerSm = n; return f; }
  /// The same tile storing D row-major: the problem's rows on the MMA's M side.
  constexpr TileFamily rowMajorTwin(const char *twinName) const {
    TileFamily f = *this;
    f.name = twinName;
    f.colMajorD = false;
    return f;
  }
  constexpr TileFamily withL2Promotion(int bytes) const {
    TileFamily f = *this;
    f.l2Promotion = bytes;
    return f;
  }
};

// The constants from `python3 bench/model/fit_cost_model.py` (2026-12-01).
constexpr TileFamily kFamilies[] = {
    // specs/sm90/05_fast_f16.yaml / 06_fast_bf16.yaml: the fixed default.
    {"large", 128, 256, 64, 2, 4, 16, 1, "128", 0.6905},
    // bench/families/wide_d5_c64.yaml: fewer columns per tile where 128x256
    // tiles fall just past a wave (bench/h200-wide.sh, docs/PERF.md).
    {"wide", 128, 192, 64, 2, 5, 16, 1, "64", 0.5186},
    // Widths that fill a wave (bench/wave-fit, spec 22): tile counts that are
    // multiples of 132 where 64-column steps are not. Per-k-block times fitted
    // by bench/model/fit_wave_fit.py to 12 shapes each (2026-12-03_wave_fit_h200,
    // rms log error 0.05-0.09), within 3% of the large/wide families' 0.0027 us
    // per column.
    {"fit112", 128, 112, 64, 2, 6, 16, 1, "112", 0.3095},
    {"fit144", 128, 144, 64, 2, 6, 16, 1, "48", 0.4020},
    {"fit160", 128, 160, 64, 2, 5, 16, 1, "160", 0.4380},
    {"fit176", 128, 176, 64, 2, 4, 16, 1, "176", 0.4805},
    {"fit256x160", 256, 160, 64, 2, 4, 16, 1, "32", 0.8625},
    // 128x224 in 64-byte slabs of 32 columns (bench/wave-fit/m128n224_c32.yaml):
    // 7168 = 32 x 224, so 512 and 256 rows of it make 128 tiles where 128x256
    // makes 112 for 132 SMs (1.04-1.07 of cuBLAS against 0.97-0.99, bf16
    // 0.97-1.00 against 0.87-0.94). Fitted by fit_wave_fit.py to 12 shapes
    // (2026-12-03_wave_fit224_h200, rms log error 0.028).
    {"fit224", 128, 224, 64, 2, 4, 16, 1, "32", 0.6270},
    // bench/families/medium_d6.yaml (tuned for 2048^3 on 2026-11-29).
    {"medium", 128, 128, 64, 1, 6, 8, 1, "", 0.3572},
    // specs/tuned/nvidia_h200/f16_128x8192x8192.yaml, spec 12's tile.
    {"small", 64, 128, 64, 1, 8, 16, 1, "", 0.2082},
};
// Spec 26: 256x152 (12 x 33 = 396 tiles at 3000x5000, three exact waves),
// its last epilogue chunk overlapping the fourth. Fitted by fit_wave_fit.py
// beside 256x160 on 12 shapes in one call (2026-12-04_overlap_fit_h200:
// 0.8445 against 0.8715 us per k-block), scaled to fit256x160's constant.
// Where the model picks fit256x160 and predicts 256x152 faster (between
// these two tiles its order held at 10 of 12 shapes, two level; against the
// 128-row families it was 3-6% off, so 256x152 is no candidate of its own),
// 152-column tiles fill the rounds better, and kPingPong152 runs them.
constexpr TileFamily kWaveFit152 = {"fit256x152", 256, 152, 64, 2, 4, 16, 1, "32", 0.8358};
// 128x152 on ping-pong consumers, 5 stages, chunks of 32 overlapping at the
// tile's edge (bench/wave-fit/m128n152_pingpong_d5.yaml): one consumer's
// epilogue runs while the other's wgmmas do, which the cooperative 256x152
// pays per chunk. A measured rule (bench/h200-n152-pingpong.sh,
// bench/h200-pp152-shapes.sh, 2026-12-04): at every shape where 256x152
// replaced 256x160 it ran 1.02-1.07 of cuBLAS against 0.94-0.98
// (3000x5000x2048 / 4096, 2048x5000x2048, 6000x5000x2048; 3000x5000x8192
// 0.993-0.997 against 0.985-0.987); elsewhere it was behind (0.55-0.96).
constexpr TileFamily kPingPong152 =
    TileFamily{"pingpong152", 128, 152, 64, 2, 5, 16, 1, "32", 0}.withPingPong();

// The default with B multicast across a 2x1 cluster (bench/variants/
// cluster2_group16.yaml): where packed K-major rows start 16 bytes past a
// 32-byte sector it read them at 0.98 (4096x4096x4104) and 1.01
// (8192x8192x8200) of cuBLAS, where the default read them at 0.82-0.87 and
// 0.81-0.93 after the staging copy (2026-12-03_kres_cluster_h200); on
// aligned rows it is ~2% slower than the default, so only those shapes take it.
constexpr TileFamily kLargeMulticast =
    TileFamily{"large_c2", 128, 256, 64, 2, 4, 16, 1, "128", 0.6905}.withClusterM(2);

// Decode (few tokens, many weights): spec 23's kernel, which stores D
// column-major, so that a row-major D = X·W^T is computed as D^T = W·X^T
// with the weights on the MMA's M side (64 rows) and up to 16 tokens on its
// N side, instead of 1-16 tokens padded to a 64-row tile. A measured rule,
// not the model's (docs/PERF.md, bench/h200-decode-col.sh, 2026-12-03): for
// M <= 16 and at least 96 tiles of 64 weights, 8 stages (0.93-1.03 of
// cuBLAS at 1 and 16 tokens); 64-95 tiles, 16 stages (fewer CTAs, more
// bytes in flight each: 0.90-1.01 against 8 stages' 0.83-0.96); with fewer
// (N = 2112: 33 tiles, 0.70) the split-K small tile streams them faster,
// or the same kernel with K split (below).
// 17-32 tokens: 64x32, 12 stages (bench/decode-col/m64n32_d12.yaml): 0.93-1.07
// of cuBLAS on ten weight shapes against the small family's 0.86-1.03
// (bench/h200-decode-col32.sh).
constexpr TileFamily kDecode = TileFamily{"decode", 64, 16, 64, 1, 8, 16, 1, "", 0}.withColMajorD();
// Unsplit, two CTAs per SM (85 KB of shared memory each; consumers at 216
// registers): two k-block chains per SM. Against one per SM, same call, two
// passes (bench/h200-decode-occ2.sh, 2026-12-03): 16x10240x8192 -6.5%,
// 1x11008x4096 -4%, 8x14336x4096 -2.5%, 4x28672x4096 -1.6%, 16x8192x28672
// and 1x6144x4096 level, 1x57344x8192 +0.5%. Split in K it was level at
// 1x4096x14336 and is not used there. The operands' L2 requests of 128
// bytes instead of 256: 0.5-4% faster at nine of ten shapes of 88-940 MB of
// weights, level at the tenth (bench/h200-decode-l2promo.sh, 2026-12-04).
constexpr TileFamily kDecodeTwoPerSm = kDecode.withCtasPerSm(2).withL2Promotion(128);
// 64-95 tiles with 128-byte L2 requests too: 1-2.5% faster at three of four
// shapes, level at the fourth (bench/h200-decode-l2promo2.sh); decode32,
// decode64 and the split kernels were mixed or behind with them and keep 256.
// Deeper rings, 20 and 22 stages, ran level to 7% behind 16 at 64-96 tiles
// (bench/h200-decode-deep2.sh, 2026-12-05).
constexpr TileFamily kDecodeDeep =
    TileFamily{"decode_d16", 64, 16, 64, 1, 16, 16, 1, "", 0}.withColMajorD().withL2Promotion(128);
constexpr TileFamily kDecode32 =
    TileFamily{"decode32", 64, 32, 64, 1, 12, 16, 1, "", 0}.withColMajorD();
constexpr long long kDecodeMaxTokens = 32, kDecode16MaxTokens = 16;
// 33-64 tokens: 64x64, 12 stages (bench/decode-col/m64n64_d12.yaml), for
// 40-128 tiles of 64 weights and less than 96 MiB of 16-bit weights: on 22
// such shapes 0.83-1.13 of cuBLAS against the small family's 0.76-0.99
// (level at 33x5120x4096, ahead on the rest; bench/h200-decode64-l2.sh,
// 2026-12-03). Outside it behind: 33 tiles (2112 weights: 0.78 against
// 0.91), 136 and 172 tiles (0.86-0.94 against 0.97-0.99), 96 MiB and more
// (40x6144x8192: 0.87 against 0.94; 64x4096x14336: 0.94 against 1.02).
constexpr TileFamily kDecode64 =
    TileFamily{"decode64", 64, 64, 64, 1, 12, 16, 1, "", 0}.withColMajorD();
constexpr long long kDecode64MaxTokens = 64, kDecode64MinTiles = 40, kDecode64MaxTiles = 128;
constexpr long long kDecode64BelowWeightBytes = 96LL << 20;
constexpr long long kDecodeMinTiles = 64, kDecodeDeepBelowTiles = 96;
// 96-132 tiles (one wave of one CTA per SM) with K > 8192: 16 stages again.
// Against two CTAs per SM, same call, two passes each (bench/h200-decode-
// occ3.sh, 2026-12-05): 16x8192x28672 (128 tiles) 1.8% faster, 16x7168x16384
// (112) 0.5-1.4%, 1x8448x14336 (132) 0.5-1.9%; at K <= 8192 or more tiles
// mixed (1x6144x4096 4.5% behind, 16x10240x8192 4.5% behind, 1x57344x8192
// 2% ahead), which stay two CTAs per SM. Three CTAs per SM (7 or 6 stages)
// and four (5) were 4% behind to 4% ahead of two and are no family.
constexpr long long kDecodeDeepLongK = 8192;
// With K split (spec 24: the slices' f32 partial sums row-major, the
// reduction writes D column-major; bench/h200-decode-col-split*.sh,
// 2026-12-03): at 1-8 tokens and 24-63 tiles, 4 slices where tiles x 4 fill
// at most the 132 SMs, else 2 (1x2112x7168 0.99 against the split small
// tile's 0.90, 1x3072x4096 0.97 against 0.89; at 16 tokens level or behind,
// 16 tiles mixed). 64-95 tiles stay unsplit at any K: at K > 8192 2 slices
// of 8 stages had led the 16-stage kernel (0.95-1.04 against 0.90-0.99,
// 2026-12-03), but the kernels since run it unsplit at 0.99-1.10 of cuBLAS
// against the split's 0.93-1.05 on eight shapes of 1-16 tokens and K 11008-
// 28672, ahead at each (bench/h200-decode-deep.sh, 2026-12-05). The splits
// with 16 stages instead of 8 ran behind at five of six shapes of 24-63
// tiles (bench/h200-decode-deep2.sh); a 64x128 column-major tile for 65-128
// tokens ran behind the model's families at all eight shapes measured.
constexpr long long kDecodeSplitMaxTokens = 8, kDecodeSplitMinTiles = 24;

// Many rows and at most 64 columns with D row-major (57344x16x8192): the
// decode rule on the transposed problem, with each decode family's twin
// storing D row-major, so that the M rows stream through the MMA's M side as
// the weights do in decode (the model's 128-row families pad 16 columns to
// 112-256: 0.47-0.81 of cuBLAS).
// Measured (bench/h200-narrow-n.sh, -narrow-rule.sh, 2026-12-05; f16 and
// bf16, A row- and B column-major): at <= 16 columns `tall` 0.97-1.07 of
// cuBLAS from 96 tiles of 64 rows, `tall_d16` 1.02-1.12 at 64 tiles (its spec
// without 128-byte L2 requests, as measured; at K > 8192 too, where the split
// then chosen for decode ran 4-5% behind it); `tall32` 0.96-1.07 and
// `tall64` 0.92-1.09 where the model's families ran 0.51-0.80, `tall` split
// 2-4 at 24-63 tiles 0.93-1.46. An f32 D and other layouts were not measured
// and stay the model's.
constexpr TileFamily kTall = kDecode.rowMajorTwin("tall");
constexpr TileFamily kTallTwoPerSm = kDecodeTwoPerSm.rowMajorTwin("tall");
constexpr TileFamily kTallDeep = kDecodeDeep.rowMajorTwin("tall_d16").withL2Promotion(0);
constexpr TileFamily kTall32 = kDecode32.rowMajorTwin("tall32");
constexpr TileFamily kTall64 = kDecode64.rowMajorTwin("tall64");
// B N-major: the twins load it in one TMA box of their 16 or 32 columns
// (32- and 64-byte swizzle; 64 columns: the 128-byte box). Before those
// boxes tall64 took 9-64 columns of such a B (0.84-1.03 of cuBLAS at 16-64
// columns, the model's 64x128/128x128 0.58-0.77; at 1-8 columns padded to 64
// it ran behind them, 0.46-0.79; bench/h200-tall-nmajor.sh, 2026-12-05). The
// twins with the narrow boxes: 5-40% faster than those at 3-32 columns on the
// H200 (1-36% on the H100), but 6-10% behind the twins with B K-major at 16
// and 32 columns and 25% at 4-8 (bench/h200-tall-nmajor2.sh).

// D of at most this many rows (or columns): the SIMT path. Against the MMA
// tiles, one binary (bench/h200-narrow-ab.sh, 2026-12-05): on the H200 ahead
// by 1-31% at six of ten one- and two-row shapes, level at two, behind at
// 14336x2x4096 (3%) and 1x11008x4096 (7%); on the H100 ahead or level at
// nine of ten. At 4 tokens it trailed (eight FMAs and a conversion per weight
// and token). 0 turns the path off for `auto`.
constexpr long long kSimtNarrowRows = 2;
struct Twin {
  const TileFamily *decode, *tall;
};
constexpr Twin kTallTwins[] = {{&kDecode, &kTall},
                               {&kDecodeTwoPerSm, &kTallTwoPerSm},
                               {&kDecodeDeep, &kTallDeep},
                               {&kDecode32, &kTall32},
                               {&kDecode64, &kTall64}};

// Short K with many tiles: spec 20's ping-pong consumers (each computes its
// own 128x128 tiles, one's epilogue running while the other's wgmmas do). A
// measured rule, not the model's, whose per-tile term cannot tell what the
// turns hide (docs/PERF.md): at K = 512 with >= 1024 tiles of 128x128 it ran
// 6-14% faster than the default on the H200 (8192x8192x512 1.07 of cuBLAS
// against 0.94), at K = 1024 1-6%, at K = 2048 1-2% behind
// (bench/h200-worst-shapes.sh, 2026-12-03_worst_shapes_h200). K whole k-blocks
// only (every shape measured was a multiple of 512). GPUs with the H200's
// 60 MiB of L2 or more only: on the H100 (50 MiB) the same kernel ran
// 12288x12288x1024 and 16384x16384x1024 17-20% behind the default, with 28%
// more DRAM reads and the L2 at 84% of its bandwidth (ncu; on the H200 the
// same DRAM bytes as the default), and was within 4% either way at the other
// six shapes (bench/h200-pingpong-gpu.sh, 2026-12-06_pingpong_gpu_h100).
constexpr TileFamily kPingPong =
    TileFamily{"pingpong", 128, 128, 64, 2, 6, 16, 1, "64", 0}.withPingPong();
constexpr long long kPingPongMaxK = 1024, kPingPongMinTiles = 1024;
constexpr long long kPingPongMinL2Bytes = 60LL << 20;

/// Packed K-major rows of `elemBytes` elements that start 16 bytes past a
/// 32-byte L2 sector (a row read touches 5 sectors instead of 4).
bool rowsStraddleSectors(long long K, long long elemBytes) { return (K * elemBytes) % 32 == 16; }

// fp8, per-tensor scales; per-k-block times from `python3
// bench/model/fit_fp8_model.py` (2026-12-02), the other constants shared.
// The last family of each list is the 64-row tile the padding rule keeps
// for M < 64 (rank()).
constexpr TileFamily kFp8TensorFamilies[] = {
    {"large", 128, 256, 128, 2, 4, 16, 1, "128", 0.6570},  // spec 13
    {"wide", 128, 192, 128, 2, 4, 16, 1, "64", 0.5037},    // bench/variants/fp8/n192.yaml
    {"medium", 128, 128, 128, 2, 6, 16, 1, "128", 0.3367}, // bench/variants/fp8/n128.yaml
    {"small", 64, 128, 128, 1, 8, 16, 1, "128", 0.2088},   // bench/variants/fp8/m64_s1.yaml
};
// fp8, blockwise scales: k-blocks in pairs, the first one's sum promoted
// under the second one's wgmmas (mma_in_flight 1), but for the 192-column
// tile, whose two partial sums do not fit beside its accumulators (each
// k-block promoted after its own wgmmas); every family's scales read from
// the stage's shared memory, the producer over four warps. Per-k-block times
// fitted (2026-12-04, `python3 bench/model/fit_fp8_model.py`) to every family
// at the eight DeepSeek-V3 shapes, M = 128 also split 2-8
// (bench/h200-blockwise-warps4-families.sh; one producer thread: 0.3999,
// 0.6020, 0.2717, 0.2366).
constexpr TileFamily kFp8BlockFamilies[] = {
    {"medium", 128, 128, 128, 2, 6, 16, 1, "64", 0.3809}, // spec 15 (17 split)
    {"wide", 128, 192, 128, 2, 5, 16, 0, "64", 0.5821},   // spec 19
    {"narrow", 128, 64, 128, 2, 8, 16, 1, "64", 0.2635},  // variants/blockwise/n64
    {"small", 64, 128, 128, 1, 8, 16, 1, "128", 0.2356},  // variants/blockwise/m64_s1
};
/// The multiprocessors the model and the rules were measured on (the H200's);
/// a choice for another GPU counts its rounds and waves on that GPU's own.
constexpr int kSms = 132;
constexpr double kTileMicros = 1.3286;   ///< per tile: prologue, epilogue
constexpr double kLaunchMicros = 2.6784; ///< per kernel launch
constexpr double kReduceMicros = 5.9787; ///< split-K: the reduction's launch
constexpr double kDramGBs = 3966.94;     ///< operands streamed once
constexpr double kSplitGBs = 4550.55;    ///< a split-K workspace that stays in the L2
constexpr double kOverlapP = 3.6465;     ///< smooth maximum of tile work and operand stream
constexpr double kL2Bytes = 32.0 * (1 << 20); ///< larger workspaces go to DRAM (60 MiB L2)
constexpr int kSplits[] = {1, 2, 3, 4, 6, 8};
// The predicted gain for which the model leaves the default: 5%, down from
// 10% (2026-12-03): of the four 16-bit sweep shapes it moves, three measured
// 5-10% faster and one level (bench/h200-margin.sh); of the five fp8
// blockwise choices, all 1-11% faster (bench/h200-fp8-margin.sh).
constexpr double kLeaveDefaultGain = 1.05;

long long ceilDiv(long long a, long long b) { return (a + b - 1) / b; }

/// The multiprocessors of the GPU `o` is for (0: unknown, taken as kSms).
int smsOf(const ChoiceOptions &o) { return o.smCount > 0 ? o.smCount : kSms; }

struct DecodePick {
  const TileFamily *family = nullptr; ///< none: the model's choice stands
  int split = 1;
  std::string note; ///< why the rule picked this family, where it says more
};

/// The measured decode rule: a column-major-D family and its split for M
/// tokens of N weights (K deep) on `sms` multiprocessors, where one applies.
DecodePick pickDecode(long long M, long long N, long long K, int sms) {
  const long long tiles = ceilDiv(N, kDecode.tileM);
  if (M > kDecodeMaxTokens) {
    const bool fits = M <= kDecode64MaxTokens && tiles >= kDecode64MinTiles &&
                      tiles <= kDecode64MaxTiles && N * K * 2 < kDecode64BelowWeightBytes;
    return fits ? DecodePick{&kDecode64, 1, {}} : DecodePick{};
  }
  if (tiles >= kDecodeMinTiles) {
    if (M > kDecode16MaxTokens)
      return {&kDecode32, 1, {}};
    const bool oneWaveLongK = tiles <= sms && K > kDecodeDeepLongK;
    return {tiles >= kDecodeDeepBelowTiles && !oneWaveLongK ? &kDecodeTwoPerSm : &kDecodeDeep, 1,
            {}};
  }
  if (M <= kDecodeSplitMaxTokens && tiles >= kDecodeSplitMinTiles) {
    const int split = tiles * 4 <= sms ? 4 : 2; // 4 slices where they fit one wave
    if (splitKSlices(K, kDecode.tileK, split) == split)
      return {&kDecode, split, {}};
  }
  return {};
}

/// Whether family f's kernel compiles for the layouts and D of `o`.
bool fitsOptions(const TileFamily &f, const ChoiceOptions &o) {
  // The MMA's B loaded N-major: whole 128-byte boxes, or (a row-major-D
  // family's B) one narrow box of 16 or 32 columns (KernelPlan's
  // mnMajorSwizzleBytes, as the checks ask).
  const bool bNMajor = f.colMajorD ? o.a == Layout::Col : o.b == Layout::Row;
  const unsigned swizzle =
      f.tileN % f.clusterM ? 0 : mnMajorSwizzleBytes((unsigned)(f.tileN / f.clusterM), 2);
  if (bNMajor && (swizzle == 0 || (f.colMajorD && swizzle != kSwizzleRowBytes)))
    return false;
  return !o.f32Out || (f.tileN % 16 == 0 && !f.colMajorD);
}

/// The decode rule on the transposed problem: a row-major-D twin of a decode
/// family and its split for M rows of N <= 64 columns (K deep), where one
/// applies, A is K-major and D 16-bit. A B stored N-major (a column-major
/// D of column-major A and B, or a row-major B) is loaded in one TMA box of
/// the twin's columns (see kTallTwins).
DecodePick pickTall(long long M, long long N, long long K, const ChoiceOptions &o) {
  if (o.f32Out || o.a != Layout::Row)
    return {};
  const DecodePick d = pickDecode(N, M, K, smsOf(o));
  for (const Twin &t : kTallTwins)
    if (d.family == t.decode && fitsOptions(*t.tall, o))
      return {t.tall, d.split,
              o.b == Layout::Row ? "; B N-major: one TMA box of its " +
                                       std::to_string(t.tall->tileN) + " columns"
                                 : ""};
  return {};
}

/// The measured short-K rule's shapes: ping-pong consumers for M×N×K.
bool pingPongShape(long long M, long long N, long long K) {
  return K <= kPingPongMaxK && K % kPingPong.tileK == 0 &&
         ceilDiv(M, kPingPong.tileM) * ceilDiv(N, kPingPong.tileN) >= kPingPongMinTiles;
}
/// Whether a GPU with `l2Bytes` of L2 (0: unknown, taken as the H200's)
/// takes the rule.
bool pingPongL2(int l2Bytes) { return l2Bytes == 0 || l2Bytes >= kPingPongMinL2Bytes; }

template <std::size_t N>
const TileFamily *findFamily(const TileFamily (&families)[N], const std::string &name) {
  for (const TileFamily &f : families)
    if (name == f.name)
      return &f;
  return nullptr;
}

/// Element sizes the operand stream and D's bytes are counted in.
struct Bytes {
  double operand = 2, out = 2;
};

// Tiles run in rounds of one per SM (`sms` of them); each round costs its
// longest tile.
double predict(const TileFamily &f, int split, long long M, long long N, long long K,
               Bytes bytesPer = {}, int sms = kSms) {
  const long long kBlocks = ceilDiv(K, f.tileK);
  const long long slices = std::min<long long>(split, std::max<long long>(kBlocks, 1));
  const long long perSlice = ceilDiv(kBlocks, slices);
  const long long units = ceilDiv(M, f.tileM) * ceilDiv(N, f.tileN) * slices;
  const double rounds = (double)ceilDiv(units, sms);
  const double main = rounds * (kTileMicros + (double)perSlice * f.microsPerKBlock);
  const double bytes =
      bytesPer.operand * ((double)M * K + (double)N * K) + bytesPer.out * (double)M * N;
  const double stream = bytes / (kDramGBs * 1e3);
  // Tile work and operand stream overlap, not perfectly: a smooth maximum.
  double us = std::pow(std::pow(main, kOverlapP) + std::pow(stream, kOverlapP), 1 / kOverlapP) +
              kLaunchMicros;
  if (slices > 1) {
    const double workspace = 4.0 * slices * (double)M * N; // written, then read back
    us += kReduceMicros + 2 * workspace / ((workspace <= kL2Bytes ? kSplitGBs : kDramGBs) * 1e3);
  }
  return us;
}

/// What a spec's `types` line and description say beyond the tile.
struct SpecTypes {
  DType a, b, d;
  bool blockwise = false;
  std::string summary; ///< e.g. "f16", "e4m3 -> bf16, blockwise scales"
};

// epilogue.chunk_n is given for a 16-bit D; the same bytes for D's type
// where that many columns still divide the tile (f32: half the columns).
std::string chunkFor(const TileFamily &f, DType d) {
  if (!*f.chunkN)
    return "";
  const int chunk16 = std::atoi(f.chunkN);
  const int chunk = chunk16 * 2 / (int)sizeOf(d);
  return std::to_string(chunk <= f.tileN && f.tileN % chunk == 0 ? chunk : chunk16);
}

/// The consumers' registers: 232 with one CTA per SM; with more, the pool a
/// CTA is launched with (launchedRegistersPerThread, the checks' bound) less
/// the producer warpgroup's 128 x 40: 216 for two CTAs of 256 threads, 120
/// for three, 88 for four.
int consumerRegisters(const TileFamily &f) {
  if (f.ctasPerSm <= 1)
    return 232;
  const int threads = 128 * (1 + f.consumers);
  const int launched = (int)launchedRegistersPerThread(f.ctasPerSm, threads);
  return std::min(232, (launched * threads - 128 * 40) / (128 * f.consumers) / 8 * 8);
}

// One spec per family, split and types: the family's spec file with its
// name, types and split filled in.
std::string specFor(const TileFamily &f, int split, const SpecTypes &t, const std::string &name,
                    int simtNarrow = 0, bool streamK = false) {
  std::string s;
  s += "# Chosen by gemmgen's cost model (docs/RUNTIME.md, \"Choosing a kernel for a shape\")\n";
  s += "kernel: " + name + "\n";
  s += "description: " + std::string(f.name) + " " + std::to_string(f.tileM) + "x" +
       std::to_string(f.tileN) + "x" + std::to_string(f.tileK) + ", " +
       std::to_string(f.consumers) + " consumer(s), " + std::to_string(f.depth) + " stages" +
       (f.colMajorD ? ", D column-major" : "") +
       (split > 1 ? ", K in up to " + std::to_string(split) + " slices" +
                        (streamK ? " in one launch (stream-K, aligned shares)" : "")
                  : std::string()) +
       ", " + t.summary + "\n";
  s += "target: sm_90a\n";
  s += std::string("types: { a: ") + toString(t.a) + ", b: " + toString(t.b) +
       ", d: " + toString(t.d) + ", accumulate: f32" +
       (t.blockwise ? ", scaling: blockwise" : "") + " }\n";
  s += f.colMajorD ? "layout: { a: row, b: col, d: col }\n" : "layout: { a: row, b: col }\n";
  s += "tile: { m: " + std::to_string(f.tileM) + ", n: " + std::to_string(f.tileN) +
       ", k: " + std::to_string(f.tileK) + " }\n";
  s += "pipeline: { depth: " + std::to_string(f.depth) +
       ", mma_in_flight: " + std::to_string(f.mmaInFlight) +
       (f.l2Promotion ? ", l2_promotion: " + std::to_string(f.l2Promotion) : std::string()) +
       " }\n";
  s += "consumers: " + std::to_string(f.consumers) + "\n";
  if (f.clusterM > 1)
    s += "cluster: { m: " + std::to_string(f.clusterM) + ", n: 1 }\n";
  s += std::string("scheduler: { kind: ") + (streamK ? "stream_k" : "persistent") +
       ", raster: along_m, group: " + std::to_string(f.group) +
       (split > 1 && !streamK ? ", split_k: " + std::to_string(split) : std::string()) +
       (f.pingPong ? ", consumers: pingpong" : "") +
       (f.ctasPerSm > 1 ? ", ctas_per_sm: " + std::to_string(f.ctasPerSm) : std::string()) +
       (simtNarrow ? ", simt_narrow: " + std::to_string(simtNarrow) : std::string()) + " }\n";
  s += "roles:\n";
  // Blockwise: the producer's copies spread over four warps (each on its own
  // sub-partition; spec 15, docs/PERF.md "The producer over four warps").
  s += std::string("  producer: { warps: ") + (t.blockwise ? "4" : "1") +
       ", registers: 40, does: tma_load }\n";
  s += "  consumer: { warpgroups: " + std::to_string(f.consumers) +
       ", registers: " + std::to_string(consumerRegisters(f)) + ", does: [mma, epilogue] }\n";
  const std::string chunk = chunkFor(f, t.d);
  s += std::string("epilogue: { store: tma") +
       (chunk.empty() ? std::string() : ", chunk_n: " + chunk) + ", overlap: true }\n";
  return s;
}

std::string fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// The best of `families` (the first is the default) for M×N×K.
struct Ranked {
  const TileFamily *best;
  int split = 1;
  double us = 0, defaultUs = 0;
  bool defaultIsPadding = false;
  std::string note; ///< why the choice left the ranking (appended to the reason)
  int simtNarrow = 0; ///< scheduler.simt_narrow of the spec (0: none)
  std::string rule; ///< a measured rule that chose instead of the model (the reason's words)
  bool streamK = false; ///< the split in one launch: the family's stream-K kernel
};

/// Whether family f's spec passes the checks for what `o` says: the MMA's B
/// loaded N-major (B stored K×N; for a family that stores D column-major,
/// computing D^T = B·A^T, A stored M-major) takes whole 64-column boxes of it
/// per CTA; an f32 D 16-column slabs (tiles of 8 mod 16 store a 16-bit D)
/// and no column-major store (its stmatrix .trans writes 16-bit values).

/// What a problem allows beyond the shape.
struct Allowed {
  bool splits = true;      ///< split-K (not with an 8-bit D: the reduction writes 16/32-bit)
  bool paddingRule = true; ///< only the 64-row family for M < 64 (docs/PERF.md)
  int tileNMultiple = 8;   ///< a 16-bit D: any n8 block; an 8-bit D: 128-column slabs
  ChoiceOptions options;   ///< the kernel's layouts and D (fitsOptions)
};

template <std::size_t NF>
Ranked rank(const TileFamily (&families)[NF], long long M, long long N, long long K, Bytes bytes,
            Allowed allowed) {
  const bool paddingRule = allowed.paddingRule;
  const TileFamily &fallback = families[0];
  Ranked r;
  r.defaultUs = predict(fallback, 1, M, N, K, bytes, smsOf(allowed.options));
  // Fewer than 64 rows: the default's 128-row tile is mostly padding, where
  // the model never saw it (its points there are the small tile's); on the
  // H200 the 64-row tile was faster on every such shape measured, 1x57344x8192
  // and 4x28672x4096 among them (docs/PERF.md), so the default is no
  // candidate and no margin protects it. fp8 the same: its 64-row tiles beat
  // specs 13 and 15 at every M <= 64 measured (2026-12-02_fp8_decode_h200).
  r.defaultIsPadding = paddingRule && fallback.tileM > 2 * M;
  r.best = r.defaultIsPadding ? nullptr : &fallback;
  r.us = r.defaultIsPadding ? HUGE_VAL : r.defaultUs;
  const long long kBlocks = ceilDiv(K, fallback.tileK);
  for (const TileFamily &f : families) {
    // A tile of more than twice M's rows is mostly padding: the model never
    // saw such a tile but the smallest (what tuning chose for decode).
    if (paddingRule && f.tileM > 2 * M && &f != &families[NF - 1])
      continue;
    if (f.tileN % allowed.tileNMultiple != 0 || !fitsOptions(f, allowed.options))
      continue;
    for (int split : kSplits) {
      // A slice of fewer than 4 k-blocks is mostly pipeline fill; a split
      // the runtime would run as fewer slices is not offered. Widths that are
      // no multiple of 64 fill waves of whole tiles and were measured unsplit
      // only (their f32 slices would also need 32-column slabs).
      if (split > 1 && (!allowed.splits || kBlocks < 4LL * split ||
                        splitKSlices(K, f.tileK, split) != split || f.tileN % 64 != 0))
        continue;
      const double us = predict(f, split, M, N, K, bytes, smsOf(allowed.options));
      if (us < r.us)
        r.best = &f, r.split = split, r.us = us;
    }
  }
  if (!r.defaultIsPadding && r.defaultUs < kLeaveDefaultGain * r.us)
    r.best = &fallback, r.split = 1, r.us = r.defaultUs;
  return r;
}

std::string shapeText(long long M, long long N, long long K) {
  return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

KernelChoice describe(const Ranked &r, const TileFamily &fallback, const SpecTypes &types,
                      const std::string &nameSuffix, long long M, long long N, long long K) {
  KernelChoice c;
  c.family = r.best->name;
  c.splitK = r.split;
  c.predictedUs = r.us;
  c.defaultUs = r.defaultUs;
  c.streamK = r.streamK;
  c.name = "gemm_sm90_auto_" + c.family +
           (r.simtNarrow ? "_simt" + std::to_string(r.simtNarrow) : std::string()) +
           (r.streamK ? "_sk" : "_s") + std::to_string(r.split) + "_" + nameSuffix;
  c.specYaml = specFor(*r.best, r.split, types, c.name, r.simtNarrow, r.streamK);
  const std::string shape = shapeText(M, N, K);
  const std::string defaultTile =
      std::to_string(fallback.tileM) + "x" + std::to_string(fallback.tileN);
  const std::string tile =
      std::string(r.best->name) + " " + std::to_string(r.best->tileM) + "x" +
      std::to_string(r.best->tileN) + " tile" +
      (r.best->colMajorD ? std::string(" storing D column-major") : std::string()) +
      (r.best->ctasPerSm > 1 ? ", " + std::to_string(r.best->ctasPerSm) + " CTAs per SM,"
                             : std::string()) +
      (r.best->pingPong ? std::string(", its two consumers taking turns,") : std::string()) +
      (r.split > 1
           ? (r.streamK ? " with K in " + std::to_string(r.split) + " aligned stream-K shares"
                        : " with split_k " + std::to_string(r.split))
           : std::string());
  if (!r.rule.empty())
    c.reason = tile + " for " + shape + r.rule +
               " (a measured rule, not the model's; the default " + defaultTile +
               " tile: " + fixed1(r.defaultUs) + " us)";
  else if (r.best == &fallback && r.split == 1)
    c.reason = "the default " + defaultTile + " tile for " + shape + " (model: " + fixed1(r.us) +
               " us; no other family is predicted " +
               std::to_string((int)std::lround((kLeaveDefaultGain - 1) * 100)) + "% faster)";
  else
    c.reason = tile + " for " + shape + " (model: " + fixed1(r.us) + " us against " +
               fixed1(r.defaultUs) + " us for the default " + defaultTile + " tile" +
               (r.defaultIsPadding ? ", whose 128 rows are mostly padding for M = " +
                                         std::to_string(M)
                                   : std::string()) +
               ")";
  c.reason += r.note;
  return c;
}

/// Split-K in one launch (docs/PERF.md, "Session of 2026-12-07"): for the
/// small family (its stream-K kernel compiles clean; the medium tile's spills,
/// bench/few-tiles/streamk_medium.yaml), where the stream-K launch cuts each
/// tile into exactly `split` aligned shares (tile_schedule.cuh,
/// sk_aligned_split): the owner of each tile adds the other slices' partial
/// sums in the kernel, where split-K launches a reduction after it. Two shares
/// only: on the H200 they ran 1.5-5% faster than split 2 with its reduction;
/// four ran 12% slower than split 4 at 128x2048x8192, still ~1 µs slower on
/// the H100 once the flags' memset went (the owner's adds hold only 5% of the
/// stall samples: docs/PERF.md, twenty-sixth session). The launch has one CTA
/// per multiprocessor (the family's shared memory) on `sms` of them, so the
/// check here is the launch's own (Launch.cpp) on the GPU it will run on.
bool splitInOneLaunch(const TileFamily &f, int split, long long M, long long N, long long K,
                      int sms) {
  if (split != 2 || &f != findFamily(kFamilies, "small"))
    return false;
  const long long slots = schedule::tile_slots(schedule::RASTER_ALONG_M, (int)ceilDiv(M, f.tileM),
                                               (int)ceilDiv(N, f.tileN));
  return schedule::sk_aligned_split(slots, ceilDiv(K, f.tileK), sms) == split;
}

Status badSize(const char *who, long long M, long long N, long long K) {
  return Status::error(ErrorCode::InvalidArgument, std::string(who) +
                                                       " needs M, N and K of at least 1 (got " +
                                                       shapeText(M, N, K) + ")");
}

} // namespace

double gemmgen::predictKernelMicros(const std::string &family, int splitK, long long M,
                                    long long N, long long K) {
  const TileFamily *f = findFamily(kFamilies, family);
  if (!f || splitK < 1 || M <= 0 || N <= 0 || K <= 0)
    return -1;
  return predict(*f, splitK, M, N, K);
}

double gemmgen::predictFp8KernelMicros(const std::string &family, bool blockwise, int splitK,
                                       long long M, long long N, long long K) {
  const TileFamily *f = blockwise ? findFamily(kFp8BlockFamilies, family)
                                  : findFamily(kFp8TensorFamilies, family);
  if (!f || splitK < 1 || M <= 0 || N <= 0 || K <= 0)
    return -1;
  return predict(*f, splitK, M, N, K, Bytes{1, 2});
}

ChoiceProblem gemmgen::choiceProblem(const GemmArgs &args, bool f32Out) {
  const GemmArgs rm = rowMajorProblem(args);
  ChoiceProblem p;
  p.M = rm.M, p.N = rm.N, p.K = rm.K;
  p.options.a = rm.layoutA, p.options.b = rm.layoutB;
  p.options.f32Out = f32Out;
  return p;
}

Expected<KernelChoice> gemmgen::chooseKernel(long long M, long long N, long long K, DType t,
                                             const ChoiceOptions &options) {
  if (M <= 0 || N <= 0 || K <= 0)
    return badSize("chooseKernel", M, N, K);
  if (t != DType::F16 && t != DType::BF16)
    return Status::error(ErrorCode::InvalidArgument,
                         std::string("chooseKernel chooses among f16 and bf16 kernels (got ") +
                             toString(t) + "); use chooseFp8Kernel for e4m3/e5m2, or give a "
                                           "spec file for other types");
  Allowed allowed;
  allowed.options = options;
  Ranked r = rank(kFamilies, M, N, K, Bytes{}, allowed);
  if (const DecodePick d = pickDecode(M, N, K, smsOf(options));
      d.family && fitsOptions(*d.family, options)) {
    r.best = d.family, r.split = d.split, r.us = 0;
    r.rule = ": D^T = B^T·A^T puts the " + std::to_string(N) +
             " columns on the MMA's M side and the " + std::to_string(M) +
             " rows on its N side, for M <= " +
             std::to_string(d.family == &kDecode64 ? kDecode64MaxTokens : kDecodeMaxTokens);
  } else if (const DecodePick tall = pickTall(M, N, K, options); tall.family) {
    r.best = tall.family, r.split = tall.split, r.us = 0;
    r.rule = ": its " + std::to_string(M) + " rows on the MMA's M side in tiles of 64 and the " +
             std::to_string(N) + " columns on its N side, for N <= " +
             std::to_string(tall.family == &kTall64 ? kDecode64MaxTokens : kDecodeMaxTokens) +
             " (the decode rule with the problem transposed)";
    r.note = tall.note;
  } else if (pingPongShape(M, N, K) && fitsOptions(kPingPong, options) &&
             pingPongL2(options.l2Bytes)) {
    r.best = &kPingPong, r.split = 1, r.us = 0;
    r.rule = ": one consumer's epilogue runs while the other's wgmmas do, for K <= " +
             std::to_string(kPingPongMaxK) + " with at least " +
             std::to_string(kPingPongMinTiles) + " tiles";
  } else if (r.best == findFamily(kFamilies, "fit256x160") && r.split == 1 &&
             fitsOptions(kPingPong152, options) &&
             predict(kWaveFit152, 1, M, N, K, Bytes{}, smsOf(options)) < r.us) {
    r.best = &kPingPong152, r.us = 0;
    r.rule = ": 152-column tiles fill the rounds better than 256x160 here, and on ping-pong "
             "consumers one's epilogue runs while the other's wgmmas do";
  } else if (r.best == &kFamilies[0] && r.split == 1 &&
             rowsStraddleSectors(K, (long long)sizeOf(t)) && M >= 2LL * kLargeMulticast.tileM &&
             fitsOptions(kLargeMulticast, options)) {
    r.best = &kLargeMulticast;
    r.note = "; B multicast across a 2x1 cluster: packed rows of K = " + std::to_string(K) +
             " start 16 bytes past a 32-byte sector, which the multicast reads at full speed "
             "without a copy (docs/PERF.md)";
  }
  if (r.best != &kPingPong && pingPongShape(M, N, K) && !pingPongL2(options.l2Bytes))
    r.note += "; not the ping-pong rule's tiles: they need " +
              std::to_string(kPingPongMinL2Bytes >> 20) + " MiB of L2 and this GPU has " +
              std::to_string(options.l2Bytes >> 20) +
              " (on the H100's 50 they ran 17-20% behind at K = 1024, docs/PERF.md)";
  // A D of at most kSimtNarrowRows rows (or columns) with K-major operands:
  // these launches take the SIMT path (NarrowPath.cpp); the spec's kernel
  // serves the others (operands TMA must stage, more rows).
  if (narrowShape(M, N, options.a, options.b, kSimtNarrowRows)) {
    r.simtNarrow = (int)kSimtNarrowRows;
    r.note += "; at most " + std::to_string(kSimtNarrowRows) + " " +
              (M <= N ? "rows" : "columns") +
              ": launches this narrow take the SIMT path, a warp streaming each row of " +
              (M <= N ? "B" : "A") + " (scheduler.simt_narrow)";
  }
  if (r.split > 1 && r.rule.empty() && !r.simtNarrow &&
      splitInOneLaunch(*r.best, r.split, M, N, K, smsOf(options))) {
    r.streamK = true;
    r.us -= kReduceMicros;
    r.note += "; in one launch: the family's stream-K kernel, each tile's K cut at the same "
              "k-blocks, the partial sums added by the CTA of its first slice (no reduction "
              "kernel)";
  }
  const std::string type = toString(t);
  return describe(r, kFamilies[0], SpecTypes{t, t, t, false, type}, type, M, N, K);
}

Expected<KernelChoice> gemmgen::chooseFp8Kernel(long long M, long long N, long long K,
                                                const Fp8Problem &p, const ChoiceOptions &gpu) {
  if (M <= 0 || N <= 0 || K <= 0)
    return badSize("chooseFp8Kernel", M, N, K);
  if (!isFp8(p.a) || !isFp8(p.b))
    return Status::error(ErrorCode::InvalidArgument,
                         std::string("chooseFp8Kernel chooses among fp8 kernels: A and B must be "
                                     "e4m3 or e5m2 (got ") +
                             toString(p.a) + " and " + toString(p.b) +
                             "); use chooseKernel for f16/bf16");
  // An 8-bit D: no split-K (its reduction writes 16-bit or f32 D only) and
  // tiles of whole 128-column slabs (the checks refuse both otherwise).
  Allowed allowed;
  allowed.options.smCount = gpu.smCount; // fp8 operands and D: the defaults' layouts
  allowed.splits = !isFp8(p.out);
  allowed.tileNMultiple = isFp8(p.out) ? 128 : 16;
  const Bytes bytes{1, (double)sizeOf(p.out)};
  const std::string a = toString(p.a), b = toString(p.b), d = toString(p.out);
  const std::string operands = a == b ? a : a + "_" + b;
  const std::string scaling = p.blockwise ? "blockwise" : "tensor";
  SpecTypes types{p.a, p.b, p.out, p.blockwise,
                  (a == b ? a : a + " x " + b) + " -> " + d +
                      (p.blockwise ? ", blockwise scales (1x128 A, 128x128 B)"
                                   : ", per-tensor scales")};
  const std::string suffix = operands + "_" + scaling + "_" + d;
  if (p.blockwise)
    return describe(rank(kFp8BlockFamilies, M, N, K, bytes, allowed), kFp8BlockFamilies[0],
                    types, suffix, M, N, K);
  return describe(rank(kFp8TensorFamilies, M, N, K, bytes, allowed), kFp8TensorFamilies[0],
                  types, suffix, M, N, K);
}

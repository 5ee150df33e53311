//===- TileScheduleTest.cpp - gemmgen/device/tile_schedule.cuh on the host ===//
//
// The header that generated kernels include, compiled here by the host
// compiler: every unit is visited exactly once for each raster over odd grid
// shapes, the grouped orders walk the way their names say, Hilbert steps to
// a neighbour, and the balanced grid keeps the number of waves.
//
//===----------------------------------------------------------------------===//
#include "gemmgen/device/tile_schedule.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

using namespace gemmgen::schedule;

namespace {

struct Walk {
  std::vector<std::pair<int, int>> units; ///< in slot order, holes left out
  int holes = 0;
};

Walk walk(int raster, int group, int unitsM, int unitsN) {
  Walk w;
  for (int slot = 0; slot < tile_slots(raster, unitsM, unitsN); ++slot) {
    int um = -1, un = -1;
    if (tile_coords(raster, group, slot, unitsM, unitsN, um, un))
      w.units.push_back({um, un});
    else
      ++w.holes;
  }
  return w;
}

std::string where(int raster, int group, int m, int n) {
  return "raster " + std::to_string(raster) + " group " + std::to_string(group) + " grid " +
         std::to_string(m) + "x" + std::to_string(n);
}

TEST(TileSchedule, EveryUnitExactlyOnce) {
  for (int raster : {RASTER_ALONG_M, RASTER_ALONG_N, RASTER_HILBERT})
    for (int group : {1, 2, 3, 8, 16})
      for (int m : {1, 2, 3, 5, 7, 8, 13, 33})
        for (int n : {1, 2, 3, 4, 9, 17, 31}) {
          Walk w = walk(raster, group, m, n);
          std::vector<int> seen(m * n, 0);
          for (auto [um, un] : w.units) {
            ASSERT_TRUE(um >= 0 && um < m && un >= 0 && un < n)
                << where(raster, group, m, n) << ": unit (" << um << "," << un << ")";
            ++seen[um * n + un];
          }
          for (int i = 0; i < m * n; ++i) {
            ASSERT_EQ(seen[i], 1) << where(raster, group, m, n) << ": unit (" << i / n << ","
                                  << i % n << ")";
          }
          if (raster != RASTER_HILBERT) {
            EXPECT_EQ(w.holes, 0) << where(raster, group, m, n);
          }
        }
}

TEST(TileSchedule, AlongMWalksDownMInsideAGroup) {
  // 5 unit rows in groups of 2, 3 columns: rows {0,1} column by column, then
  // {2,3}, then the last short group {4}.
  Walk w = walk(RASTER_ALONG_M, 2, 5, 3);
  std::vector<std::pair<int, int>> want = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2},
                                           {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}, {3, 2},
                                           {4, 0}, {4, 1}, {4, 2}};
  EXPECT_EQ(w.units, want);
}

TEST(TileSchedule, AlongNIsAlongMTransposed) {
  for (int group : {1, 3, 8})
    for (int m : {1, 4, 7})
      for (int n : {2, 5, 9}) {
        Walk a = walk(RASTER_ALONG_M, group, n, m), b = walk(RASTER_ALONG_N, group, m, n);
        ASSERT_EQ(a.units.size(), b.units.size());
        for (size_t i = 0; i < a.units.size(); ++i)
          EXPECT_EQ(a.units[i], std::make_pair(b.units[i].second, b.units[i].first))
              << where(RASTER_ALONG_N, group, m, n) << " slot " << i;
      }
}

TEST(TileSchedule, HilbertStepsToANeighbourAndSkipsHoles) {
  for (int side : {1, 2, 4, 8, 16}) {
    Walk w = walk(RASTER_HILBERT, 8, side, side);
    EXPECT_EQ(w.holes, 0);
    for (size_t i = 1; i < w.units.size(); ++i)
      EXPECT_EQ(std::abs(w.units[i].first - w.units[i - 1].first) +
                    std::abs(w.units[i].second - w.units[i - 1].second),
                1)
          << "side " << side << " slot " << i;
  }
  // 5x3 lies in the 8x8 square: 64 slots, 49 of them holes.
  EXPECT_EQ(hilbert_side(5, 3), 8);
  EXPECT_EQ(tile_slots(RASTER_HILBERT, 5, 3), 64);
  EXPECT_EQ(walk(RASTER_HILBERT, 8, 5, 3).holes, 64 - 15);
}

TEST(TileSchedule, CompileTimeFormMatchesRuntimeForm) {
  int a = 0, b = 0, c = 0, d = 0;
  for (int slot = 0; slot < 64; ++slot) {
    bool x = tile_coords<RASTER_HILBERT, 8>(slot, 5, 7, a, b);
    bool y = tile_coords(RASTER_HILBERT, 8, slot, 5, 7, c, d);
    EXPECT_EQ(x, y);
    EXPECT_EQ(std::make_pair(a, b), std::make_pair(c, d));
  }
  EXPECT_EQ((tile_slots<RASTER_ALONG_M, 8>(5, 7)), 35);
}

TEST(TileSchedule, BalancedGridKeepsTheWavesWithFewestClusters) {
  // 4096^3 with 128x256 tiles on 132 SMs: 512 units take 4 waves either way.
  EXPECT_EQ(balanced_grid_clusters(512, 132), 128);
  EXPECT_EQ(balanced_grid_clusters(100, 132), 100); // fewer units than SMs
  EXPECT_EQ(balanced_grid_clusters(0, 132), 0);
  EXPECT_EQ(balanced_grid_clusters(7, 0), 1);       // no occupancy figure: one at a time
  for (long long units = 1; units < 600; units += 7)
    for (long long resident : {1, 3, 66, 132}) {
      long long g = balanced_grid_clusters(units, resident);
      ASSERT_GE(g, 1);
      ASSERT_LE(g, resident);
      long long waves = (units + resident - 1) / resident;
      EXPECT_EQ((units + g - 1) / g, waves) << units << " units, " << resident;
      if (g > 1) {
        EXPECT_GT((units + g - 2) / (g - 1), waves) << "not the fewest: " << units << ", " << resident;
      }
    }
}

// Stream-K's hand-over, timed in k-blocks with every CTA at the same rate (all
// start together): each CTA's parts end at the k-blocks walked so far, a
// partial part is published when it ends, and the CTA holding a unit's first
// k-block waits for every later CTA whose share starts inside the unit. The
// schedule promises that no owner waits more than one k-block past the end of
// its own walk (shares differ by at most one): the parts it waits for are the
// first parts of later shares, done by then.
TEST(TileSchedule, StreamKOwnersWaitAtMostOneKBlockPastTheirOwnWalk) {
  struct Case { long long slots, kBlocks, ctas; };
  const Case cases[] = {{72, 48, 132},    {512, 64, 132}, {48, 64, 132},
                        {2048, 128, 132}, {324, 72, 132}, {7, 3, 5},
                        {5, 1, 7},        {1, 200, 132},  {133, 16, 132},
                        {64, 172, 128},   {32, 64, 128},  {16, 56, 112}}; // the last 3: aligned
  for (const Case &c : cases) {
    std::vector<long long> published(c.ctas, -1), walked(c.ctas, 0);
    for (long long cta = 0; cta < c.ctas; ++cta) {
      SkWalk w = sk_walk(cta, c.ctas, c.slots, c.kBlocks);
      int slot, b, e;
      long long t = 0;
      while (sk_next(w, c.ctas, c.kBlocks, slot, b, e)) {
        t += e > b ? e - b : 1;
        if (b > 0)
          published[cta] = t;
      }
      walked[cta] = t;
    }
    long long latest = 0;
    for (long long cta = 0; cta < c.ctas; ++cta) {
      SkWalk w = sk_walk(cta, c.ctas, c.slots, c.kBlocks);
      int slot, b, e;
      while (sk_next(w, c.ctas, c.kBlocks, slot, b, e)) {
        if (b != 0)
          continue;
        const long long unitEnd = (long long)(slot + 1) * sk_per_unit(c.kBlocks);
        for (long long c2 = cta + 1;
             c2 < c.ctas && sk_share_begin(c2, c.ctas, c.slots, c.kBlocks) < unitEnd; ++c2) {
          ASSERT_GE(published[c2], 0) << "CTA " << c2 << " holds part of slot " << slot
                                      << " but publishes nothing";
          EXPECT_LE(published[c2], walked[cta] + 1)
              << c.slots << " slots x " << c.kBlocks << " k-blocks on " << c.ctas << " CTAs: CTA "
              << cta << " (walk " << walked[cta] << ") waits for CTA " << c2 << " (published at "
              << published[c2] << ")";
          latest = std::max(latest, published[c2]);
        }
      }
    }
    // The longest walk bounds the kernel: within one k-block of an even share.
    const long long total = c.slots * sk_per_unit(c.kBlocks);
    const long long whole = sk_dp_waves(c.slots, c.ctas) * sk_per_unit(c.kBlocks);
    const long long share = (total - whole * c.ctas + c.ctas - 1) / c.ctas;
    EXPECT_LE(*std::max_element(walked.begin(), walked.end()), whole + share) << c.slots;
    EXPECT_LE(latest, whole + share);
  }
}

// Stream-K's grid: slots x S CTAs where K cuts into S (2-8) equal shares of
// at least 4 k-blocks that fill three quarters of the resident CTAs or more;
// else every resident CTA, or one per iteration when there are fewer.
TEST(TileSchedule, StreamKGridAlignsSharesWhereKAllows) {
  struct Case {
    long long slots, kBlocks, resident, split, ctas;
  };
  const Case cases[] = {
      {64, 172, 132, 2, 128},  // 128x4096x11008 on 64x128 tiles
      {32, 64, 132, 4, 128},   // 8 ways would be 256 CTAs
      {16, 32, 132, 8, 128},   // shares of exactly 4 k-blocks
      {16, 28, 132, 7, 112},   // 7 divides 28
      {16, 24, 132, 1, 132},   // 6 shares: 96 of 132 CTAs, below three quarters (99)
      {128, 128, 132, 1, 132}, // two shares would not fit: every resident CTA
      {10, 64, 132, 1, 132},   // 80 CTAs fill too few SMs
      {64, 6, 132, 1, 132},    // shares of 3 k-blocks: too short
      {33, 171, 132, 3, 99},   // 171 = 9 x 19: 3 shares, 99 CTAs, just three quarters
      {1, 2, 132, 1, 2},       // fewer iterations than CTAs: one CTA each
      {5, 0, 132, 1, 5},       // K = 0: one empty iteration per unit
      {200, 64, 132, 1, 132},  // at least a wave of units: the hybrid
      {3, 40, 0, 1, 1},        // no resident count: one CTA
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.slots) + " slots x " + std::to_string(c.kBlocks) + " k-blocks, " +
                 std::to_string(c.resident) + " resident");
    EXPECT_EQ(sk_aligned_split(c.slots, c.kBlocks, c.resident), c.split);
    EXPECT_EQ(sk_grid_ctas(c.slots, c.kBlocks, c.resident), c.ctas);
  }
  // Not aligned (GEMMGEN_STREAMK_GRID=full): every resident CTA, or one per
  // iteration when there are fewer, whatever K allows.
  EXPECT_EQ(sk_grid_ctas(64, 172, 132, false), 132);
  EXPECT_EQ(sk_grid_ctas(16, 28, 132, false), 132);
  EXPECT_EQ(sk_grid_ctas(1, 2, 132, false), 2);
  EXPECT_EQ(sk_grid_ctas(5, 0, 132, false), 5);
  EXPECT_EQ(sk_grid_ctas(3, 40, 0, false), 1);
}

} // namespace

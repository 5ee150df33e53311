// gemmgen/device/tile_schedule.cuh — the persistent tile schedule, on host and device.
//
// One definition of the order in which persistent CTAs walk output tiles and of the persistent
// grid: generated kernels call it for their tile loop, the runtime calls it (host side) for the
// grid, the simulator executes it, so that what is simulated and launched is what runs.
//
// The schedule walks "units": a unit is the group of output tiles one cluster computes together
// (CLUSTER_M tiles along M on sm_90a, one cluster tile on sm_100a). A persistent cluster takes
// slots cluster_id, cluster_id + clusters, ...; tile_coords() maps a slot to its unit (um, un).
// Rasters:
//   along_m  GROUP unit rows at a time, walking down M inside the group (L2 keeps GROUP rows of
//            A and one column of B);
//   along_n  the same with M and N swapped;
//   hilbert  a Hilbert curve over the smallest power-of-two square holding the unit grid; its
//            slots outside the grid are holes (tile_coords returns false), which a caller skips.
//
// The header includes nothing and uses no std library, so that NVRTC, nvcc and a host compiler
// all take it. Integer arithmetic only, the same operations the kernels inlined before.
#ifndef GEMMGEN_DEVICE_TILE_SCHEDULE_CUH
#define GEMMGEN_DEVICE_TILE_SCHEDULE_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GEMMGEN_HD __host__ __device__ __forceinline__
#else
#define GEMMGEN_HD inline
#endif

namespace gemmgen {
namespace schedule {

// scheduler.raster (the values of gemmgen::RasterOrder).
enum Raster : int { RASTER_ALONG_M = 0, RASTER_ALONG_N = 1, RASTER_HILBERT = 2 };

// Side of the smallest power-of-two square that holds a units_m x units_n grid.
GEMMGEN_HD int hilbert_side(int units_m, int units_n) {
  int n = 1;
  while (n < units_m || n < units_n) n <<= 1;
  return n;
}

// How many slots a persistent loop walks: every unit, or the whole Hilbert square (holes included).
GEMMGEN_HD int tile_slots(int raster, int units_m, int units_n) {
  if (raster == RASTER_HILBERT) {
    const int side = hilbert_side(units_m, units_n);
    return side * side;
  }
  return units_m * units_n;
}

// Slot -> unit coordinates. Returns false for a Hilbert slot outside the grid (skip it).
GEMMGEN_HD bool tile_coords(int raster, int group, int slot, int units_m, int units_n, int& um,
                            int& un) {
  if (raster == RASTER_HILBERT) {
    // d2xy on the smallest power-of-two square holding the grid
    const int n = hilbert_side(units_m, units_n);
    int x = 0, y = 0, t = slot;
    for (int s = 1; s < n; s <<= 1) {
      const int rx = 1 & (t / 2);
      const int ry = 1 & (t ^ rx);
      if (ry == 0) {
        if (rx == 1) {
          x = s - 1 - x;
          y = s - 1 - y;
        }
        const int tmp = x; x = y; y = tmp;
      }
      x += s * rx;
      y += s * ry;
      t /= 4;
    }
    um = x;
    un = y;
    return um < units_m && un < units_n;
  }
  // Grouped raster: `group` units along the major direction, walking it inside the group.
  const bool along_m = raster == RASTER_ALONG_M;
  const int major = along_m ? units_m : units_n;
  const int minor = along_m ? units_n : units_m;
  const int per_group = group * minor;
  const int g = slot / per_group;
  const int first = g * group;
  const int rows = major - first < group ? major - first : group;
  const int in_group = slot - g * per_group;
  const int a = first + in_group % rows;
  const int b = in_group / rows;
  um = along_m ? a : b;
  un = along_m ? b : a;
  return true;
}

// The same with the raster and group fixed at compile time, as generated kernels call it (the
// branches on RASTER fold away).
template <int RASTER, int GROUP>
GEMMGEN_HD int tile_slots(int units_m, int units_n) {
  return tile_slots(RASTER, units_m, units_n);
}
template <int RASTER, int GROUP>
GEMMGEN_HD bool tile_coords(int slot, int units_m, int units_n, int& um, int& un) {
  return tile_coords(RASTER, GROUP, slot, units_m, units_n, um, un);
}

// Strided batched GEMM: the walk covers `batch` copies of the unit grid, one after the other
// (slot = entry * unit_slots + the slot inside the entry), so that neighbouring clusters work on
// the same batch entry and share its operands in L2. Returns the entry; `inner` gets the slot
// inside it, for tile_coords(). The host keeps unit_slots * batch within int.
GEMMGEN_HD int batch_entry(int slot, int unit_slots, int& inner) {
  const int entry = slot / unit_slots;
  inner = slot - entry * unit_slots;
  return entry;
}

// Grouped GEMM: a list of independent problems (each its own M, N, K and operands) in one
// persistent launch. The runtime writes one entry per problem into device memory before the
// launch; the walk covers every problem's unit slots one after another (problem p owns slots
// [slot_begin, slot_end): tile_slots() of its unit grid, empty for an empty problem).
struct alignas(64) GroupedProblem {
  unsigned char maps[4][128];  // tensor maps (CUtensorMap) of A, B, D and C (C: beta != 0)
  int size_m, size_n, size_k;  // the problem's M, N (D's columns, whole 16-byte chunks), K
  int slot_begin, slot_end;    // this problem's slots in the walk
  int pad[11];                 // the entry is a whole number of 64-byte lines
};
static_assert(sizeof(GroupedProblem) == 576, "the runtime writes entries of 576 bytes");
enum GroupedMap : int { GROUPED_MAP_A = 0, GROUPED_MAP_B = 1, GROUPED_MAP_D = 2, GROUPED_MAP_C = 3 };

// Slot -> the problem that owns it and the slot inside that problem's walk. `problem` is the
// caller's cursor: slots only grow along a persistent walk, so it only moves forward (start it
// at 0). The caller keeps slot below the last problem's slot_end.
GEMMGEN_HD int grouped_slot(const GroupedProblem* problems, int slot, int& problem) {
  while (slot >= problems[problem].slot_end) ++problem;
  return slot - problems[problem].slot_begin;
}

// The balanced persistent grid, in clusters: the fewest clusters that finish `units` in as many
// waves as `resident` co-resident clusters would (4096^3 with 128x256 tiles: 512 units on 132 SMs
// is 4 waves either way, so 128 clusters do it and 4 SMs idle, leaving power headroom to the
// others). With fewer units than resident clusters, one cluster per unit.
GEMMGEN_HD long long balanced_grid_clusters(long long units, long long resident) {
  if (units <= 0) return 0;
  if (resident <= 0) resident = 1;
  if (units <= resident) return units;
  const long long waves = (units + resident - 1) / resident;
  return (units + waves - 1) / waves;
}

// Stream-K (scheduler.kind: stream_k), the data-parallel + stream-K hybrid. The launch's work is
// every unit slot's k-blocks (a unit of K = 0 counts one, empty): iteration slot·per + kb. With
// `ctas` resident CTAs and `slots` units, the first (waves − 1)·ctas units (whole waves, less
// one) are data-parallel — CTA c takes slots c, c + ctas, ... whole, so that CTAs working at
// once work on neighbouring tiles, as the persistent walk does — and the rest (the last whole
// wave and the partial one; all units when there are fewer than ctas) is shared: CTA c takes
// iterations [sk_share_begin(c), sk_share_begin(c + 1)), equal shares to one iteration, each
// between one and two units' worth. A share that starts inside a unit hands its partial sum to
// the CTA holding the unit's first k-block, which waits only for later CTAs: those start their
// share with that partial unit, so no wait waits on a waiter.
GEMMGEN_HD long long sk_per_unit(long long k_blocks) { return k_blocks > 0 ? k_blocks : 1; }
// Units done whole by every CTA before the shared region (0 when a unit count is a whole number
// of waves: then there is no shared region and every unit is whole).
GEMMGEN_HD long long sk_dp_waves(long long slots, long long ctas) {
  if (ctas <= 0 || slots % ctas == 0) return ctas > 0 ? slots / ctas : 0;
  const long long waves = slots / ctas;
  return waves > 0 ? waves - 1 : 0;
}
// The first iteration of CTA `cta`'s share of the shared region (cta == ctas: its end).
GEMMGEN_HD long long sk_share_begin(long long cta, long long ctas, long long slots,
                                    long long k_blocks) {
  const long long per = sk_per_unit(k_blocks), first = sk_dp_waves(slots, ctas) * ctas;
  const long long shared = (slots - first) * per;
  return first * per + (ctas > 0 ? shared * cta / ctas : 0);
}
// Stream-K's grid (the runtime's launch and nothing else: a kernel only reads gridDim;
// GEMMGEN_STREAMK_GRID=full keeps every resident CTA). With at least as many slots as resident
// CTAs, every resident CTA (the hybrid above). With fewer, the shares are aligned where K allows
// it: slots x S CTAs for the largest S (2-8) that cuts k_blocks into equal shares of at least 4
// k-blocks and fits the resident CTAs, when that fills at least three quarters of them — every
// share is then one slice of one unit, every unit is cut at the same k-blocks (CTAs at work at
// once read the same k-slices of A and B: split-K in one launch, the owner adding S - 1
// partials), where staggered shares measured slower (docs/PERF.md, "Stream-K again"; on the H200
// the aligned grid took 4-33% less time than every resident CTA, "Session of 2026-12-07").
// Otherwise, or with `align` false, every resident CTA, or one per iteration when there are fewer.
GEMMGEN_HD long long sk_aligned_split(long long slots, long long k_blocks, long long resident) {
  if (slots <= 0 || slots >= resident) return 1;
  for (long long s = 8; s >= 2; --s)
    if (k_blocks % s == 0 && k_blocks / s >= 4 && slots * s <= resident &&
        4 * slots * s >= 3 * resident)
      return s;
  return 1;
}
// The grid for `split` (sk_aligned_split's, or 1 for the unaligned grid), for a caller that also
// reports the split.
GEMMGEN_HD long long sk_grid_for_split(long long slots, long long k_blocks, long long resident,
                                       long long split) {
  if (resident <= 0) resident = 1;
  if (split > 1) return slots * split;
  const long long iterations = slots * sk_per_unit(k_blocks);
  return iterations < resident ? (iterations > 0 ? iterations : 1) : resident;
}
GEMMGEN_HD long long sk_grid_ctas(long long slots, long long k_blocks, long long resident,
                                  bool align = true) {
  const long long split = align && resident > 0 ? sk_aligned_split(slots, k_blocks, resident) : 1;
  return sk_grid_for_split(slots, k_blocks, resident, split);
}
// One CTA's walk: its whole units, then its share.
struct SkWalk {
  long long it = 0, stop = 0; // the share's iterations
  long long next = 0, whole = 0; // the next whole unit's slot; whole units left
};
GEMMGEN_HD SkWalk sk_walk(long long cta, long long ctas, long long slots, long long k_blocks) {
  SkWalk w;
  w.whole = sk_dp_waves(slots, ctas);
  w.next = cta;
  w.it = sk_share_begin(cta, ctas, slots, k_blocks);
  w.stop = sk_share_begin(cta + 1, ctas, slots, k_blocks);
  return w;
}
// The walk's next unit: its slot and the k-blocks [kb_begin, kb_end) to compute (empty when
// k_blocks is 0); false when the walk is done.
GEMMGEN_HD bool sk_next(SkWalk &w, long long ctas, long long k_blocks, int &slot, int &kb_begin,
                        int &kb_end) {
  if (w.whole > 0) {
    slot = (int)w.next;
    w.next += ctas;
    --w.whole;
    kb_begin = 0;
    kb_end = k_blocks > 0 ? (int)k_blocks : 0;
    return true;
  }
  if (w.it >= w.stop) return false;
  const long long per = sk_per_unit(k_blocks);
  slot = (int)(w.it / per);
  kb_begin = (int)(w.it - (long long)slot * per);
  long long n = per - kb_begin;
  if (n > w.stop - w.it) n = w.stop - w.it;
  kb_end = k_blocks > 0 ? kb_begin + (int)n : 0;
  w.it += n;
  return true;
}

}  // namespace schedule
}  // namespace gemmgen

#undef GEMMGEN_HD

#endif  // GEMMGEN_DEVICE_TILE_SCHEDULE_CUH

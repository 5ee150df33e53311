#!/usr/bin/env python3
"""Hand edits of an emitted sm_90a cooperative kernel, for `run|bench --source`.

  python3 bench/experiments/edit_kernel.py EDITS < emitted.cu > edited.cu

EDITS is a comma-separated list of:
  early  the producer's thread issues the first tile's first STAGES loads right
         after it initialises the barriers, before the CTA's __syncthreads, the
         warpgroup's setmaxnreg and the tile bookkeeping (which moves above the
         barrier setup); its loop then starts at the first k-block not issued.
         Cluster size 1, one producer thread, non-grouped kernels only; kernels
         emitted since 4d9bc3f do this themselves (KernelPlan::earlyLoads), and
         the edit then stops at its first anchor.
  trace  clock64 stamps per CTA of one launch (the fifth this process makes),
         printed by block 0 of the sixth: entry, after __syncthreads (a
         cluster's: cluster_sync), the producer's first TMA issue, consumer 0's
         first full barrier, its last k-block's wgmmas done (the last tile's),
         the end of its stores; and %globaltimer at entry and end (ns, for the
         CTAs' skew); when its last TMA store was issued (cycles, before the
         wait for them all); last, the cycles consumer 0's leader waited on
         full barriers and the producer on empty ones, summed over the launch.
  stg    each staged 32-column chunk leaves through st.global from the
         consumer's 128 threads instead of one thread's TMA store (full tiles
         of a packed row-major 16-bit D only; see stg()).
  nofence  no async-proxy fence after a chunk is staged (with stg only)
  nostore  the staged chunks are not stored (timing the staging alone;
         D stays unwritten)
  twice  the chunk loop runs twice, stamped between (`mid`, with trace)
  onestage  every chunk of a one-tile CTA staged at once in the freed A
         stages, then stored (one-tile CTAs and beta = 0 only; see onestage())

Every edit finds its anchor in the emitted text or stops with an error: the
printer's output moved and the edit must be redone, not guessed.
"""
import re
import sys


def replace_once(text, old, new, what):
    n = text.count(old)
    if n != 1:
        sys.exit(f"edit_kernel: {what}: anchor found {n} times, want 1:\n{old}")
    return text.replace(old, new)


def kernel_name(text):
    m = re.search(r'extern "C" __global__ void __launch_bounds__\([^)]*\)\s*(\w+)\(', text)
    if not m:
        sys.exit("edit_kernel: no kernel definition found")
    return m.group(1)


BOOKKEEPING = re.compile(
    r"  // ---- tile bookkeeping shared by every role ----\n(.*?)\n\n", re.S)


def early(text):
    if "constexpr int CLUSTER_M = 1;" not in text or "problem_count" in text:
        sys.exit("edit_kernel: early: cluster size 1, non-grouped kernels only")
    m = BOOKKEEPING.search(text)
    if not m:
        sys.exit("edit_kernel: early: the tile bookkeeping block moved")
    block = m.group(0)
    text = text.replace(block, "")
    setup = "  // ---- barrier setup: one thread initialises, the cluster agrees ----\n"
    text = replace_once(text, setup, block + setup, "bookkeeping above the setup")
    inits = ("      mbar_init(empty_bar + 8 * s, EMPTY_ARRIVALS);\n    }\n")
    issue = inits + """    // early: the first tile's first loads go out before the CTA's barrier
    fence_mbarrier_init();
    if (cluster_id < batch_slots) {
      int unit;
      const int entry = batch_entry(cluster_id, unit_slots, unit);
      int unit_m, unit_n;
      if (tile_coords<RASTER, GROUP>(unit, units_m, tiles_n, unit_m, unit_n)) {
        const int tile_m = unit_m * CLUSTER_M + (int)cta_rank;
        const int tile_n = unit_n;
        for (int kb = 0; kb < STAGES && kb < k_blocks; ++kb) {
          mbar_arrive_expect_tx(full_bar + 8 * kb, STAGE_TX_BYTES);
          tma_load_3d(smem + SMEM_A + A_STAGE_BYTES * kb, &tmA, full_bar + 8 * kb, kb * BK, tile_m * BM, entry);
          tma_load_3d(smem + SMEM_B + B_STAGE_BYTES * kb, &tmB, full_bar + 8 * kb, kb * BK, tile_n * BN, entry);
        }
      }
    }
"""
    text = replace_once(text, inits, issue, "the early loads")
    # The producer skips what went out early: the same test, by whichever lane is elected.
    state = "      PipelineState load{0, 1u};  // phase 1: the first wait passes on the barrier's initial phase\n"
    text = replace_once(text, state, state + """      int early = 0;  // k-blocks of the first tile issued before the CTA's barrier
      if (cluster_id < batch_slots) {
        int unit;
        (void)batch_entry(cluster_id, unit_slots, unit);
        int unit_m, unit_n;
        if (tile_coords<RASTER, GROUP>(unit, units_m, tiles_n, unit_m, unit_n))
          early = k_blocks < STAGES ? k_blocks : STAGES;
      }
      for (int i = 0; i < early; ++i) load.advance();
""", "the producer's skip")
    loop = "        for (int kb = 0; kb < k_blocks; ++kb) {\n          mbar_wait(empty_bar"
    text = replace_once(text, loop, loop.replace("int kb = 0;", "int kb = slot == cluster_id ? early : 0;"),
                        "the producer's first k-block")
    return text


def trace(text):
    name = kernel_name(text)
    globals_ = f"""
// trace (bench/experiments/edit_kernel.py): one launch's stamps per CTA
constexpr unsigned TRACE_LAUNCH = 4;  // the fifth launch of the process
__device__ long long trace_stamps[1024][12];
__device__ unsigned trace_launches[1024];
__device__ __forceinline__ unsigned long long trace_globaltimer() {{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}}
"""
    text = replace_once(text, 'extern "C" __global__', globals_ + 'extern "C" __global__', "trace globals")
    entry = "  const u32 smem = (smem_addr(smem_raw) + 1023u) & ~1023u;\n"
    text = replace_once(text, entry, entry + """  const long long trace_t0 = clock64();
  __shared__ unsigned trace_launch;
  if (threadIdx.x == 0) {
    trace_launch = trace_launches[blockIdx.x]++;
    if (trace_launch == TRACE_LAUNCH) {
      trace_stamps[blockIdx.x][0] = 0;
      trace_stamps[blockIdx.x][6] = (long long)trace_globaltimer();
    }
    if (trace_launch == TRACE_LAUNCH + 1 && blockIdx.x == 0) {
      long long g0 = trace_stamps[0][6];
      for (unsigned b = 0; b < gridDim.x && b < 1024; ++b) g0 = min(g0, trace_stamps[b][6]);
      printf("trace """ + name + """: cta sync first_tma first_full mma_done end (cycles from entry) entry_ns end_ns issued mid full_wait empty_wait (cycles)\\n");
      for (unsigned b = 0; b < gridDim.x && b < 1024; ++b)
        printf("trace %u %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\\n", b, trace_stamps[b][1],
               trace_stamps[b][2], trace_stamps[b][3], trace_stamps[b][4], trace_stamps[b][5],
               trace_stamps[b][6] - g0, trace_stamps[b][7] - g0, trace_stamps[b][8], trace_stamps[b][9],
               trace_stamps[b][10], trace_stamps[b][11]);
    }
  }
""", "trace entry")
    sync = "  fence_mbarrier_init();\n  __syncthreads();\n"
    if "constexpr int CLUSTER_M = 1;" not in text:
        sync = "  fence_mbarrier_init();\n  cluster_sync();  // peers' barriers are initialised before any remote use\n"
    text = replace_once(text, sync, sync + """  const bool trace_on = trace_launch == TRACE_LAUNCH;
  if (trace_on && threadIdx.x == 0) trace_stamps[blockIdx.x][1] = clock64() - trace_t0;
""", "trace sync")
    # the producer's first TMA issue of its loop (an early copy stamps in its own place)
    first_tma = "          mbar_arrive_expect_tx(full_bar + 8 * load.stage, STAGE_TX_BYTES);\n"
    text = replace_once(text, first_tma, """          if (trace_on && slot == cluster_id && trace_stamps[blockIdx.x][2] == 0)
            trace_stamps[blockIdx.x][2] = clock64() - trace_t0;
""" + first_tma, "trace first tma")
    if "// early: the first tile's first loads" in text:
        text = replace_once(text, "          mbar_arrive_expect_tx(full_bar + 8 * kb, STAGE_TX_BYTES);\n",
                            """          if (kb == 0 && trace_launch == TRACE_LAUNCH)
            trace_stamps[blockIdx.x][2] = clock64() - trace_t0;
          mbar_arrive_expect_tx(full_bar + 8 * kb, STAGE_TX_BYTES);
""", "trace early tma")
    if "// the first tile's first k-blocks, before the CTA's barrier" in text:  # the compiler's own
        text = replace_once(text, "\n        mbar_arrive_expect_tx(full_bar + 8 * load.stage, STAGE_TX_BYTES);\n",
                            """
        if (kb == 0 && trace_launch == TRACE_LAUNCH)
          trace_stamps[blockIdx.x][2] = clock64() - trace_t0;
        mbar_arrive_expect_tx(full_bar + 8 * load.stage, STAGE_TX_BYTES);
""", "trace the compiler's early tma")
    # trace_stamps[.][2] must start at 0 each traced launch: cleared at entry
    text = replace_once(text, "      trace_stamps[blockIdx.x][0] = 0;\n",
                        "      trace_stamps[blockIdx.x][0] = 0;\n      trace_stamps[blockIdx.x][2] = 0;\n",
                        "trace clear")
    full = "        mbar_wait(full_bar + 8 * read.stage, read.phase, ROLE_CONSUMER0 + consumer, BAR_FULL, read.stage);\n"
    text = replace_once(text, full, full + """        if (trace_on && leader && consumer == 0 && kb == 0 && slot == cluster_id)
          trace_stamps[blockIdx.x][3] = clock64() - trace_t0;
""", "trace first full")
    done = "      // the tile read stages (K > 0): release the last one once its wgmmas are done\n"
    text = replace_once(text, done, """      if (trace_on && leader && consumer == 0) trace_stamps[blockIdx.x][4] = clock64() - trace_t0;
""" + done, "trace mma done")
    end = "      bulk_wait_group<0>();  // every store of this CTA done\n"
    text = replace_once(text, end, """      if (trace_on && consumer == 0) trace_stamps[blockIdx.x][8] = clock64() - trace_t0;
""" + end + """      if (trace_on && consumer == 0) {
        trace_stamps[blockIdx.x][5] = clock64() - trace_t0;
        trace_stamps[blockIdx.x][7] = (long long)trace_globaltimer();
      }
""", "trace end")
    # the cycles spent waiting: consumer 0's leader on full barriers, the producer on empty ones
    read = "    PipelineState read{0, 0u};  // phase 0: wait for the first completion\n"
    text = replace_once(text, read, read + "    long long trace_full_wait = 0;\n", "trace full-wait sum")
    text = replace_once(text, full, """        const long long trace_fw0 = clock64();
""" + full + """        trace_full_wait += clock64() - trace_fw0;
""", "trace full wait")
    text = replace_once(text, "      if (trace_on && consumer == 0) {\n        trace_stamps[blockIdx.x][5]",
                        """      if (trace_on && leader && consumer == 0) trace_stamps[blockIdx.x][10] = trace_full_wait;
      if (trace_on && consumer == 0) {
        trace_stamps[blockIdx.x][5]""", "trace full-wait store")
    load = "      PipelineState load{0, 1u};  // phase 1: the first wait passes on the barrier's initial phase\n"
    text = replace_once(text, load, load + "      long long trace_empty_wait = 0;\n", "trace empty-wait sum")
    empty = "          mbar_wait(empty_bar + 8 * load.stage, load.phase, ROLE_PRODUCER, BAR_EMPTY, load.stage);\n"
    text = replace_once(text, empty, """          const long long trace_ew0 = clock64();
""" + empty + """          trace_empty_wait += clock64() - trace_ew0;
""", "trace empty wait")
    text = replace_once(text, "      } // tile\n    }\n    __syncwarp();  // reconverge warp 0",
                        """      } // tile
      if (trace_on) trace_stamps[blockIdx.x][11] = trace_empty_wait;
    }
    __syncwarp();  // reconverge warp 0""", "trace empty-wait store")
    return text


def stg(text):
    """The staged chunk leaves through st.global from the consumer's 128 threads, not one TMA store.

    The kernel has no D pointer (its D is a tensor map): the edit reads the global address from the
    map's first 8 bytes, where the driver's encoding kept it on the H100 on 2026-12-06 (not a
    documented layout: an experiment only; `--verify` tells whether it holds). Full tiles of a row-major,
    packed 16-bit D (ldd = N) in 32-column chunks of one 64-byte swizzled slab only: no bounds.
    """
    store = """        if (leader) {
          #pragma unroll
          for (int slab = 0; slab < EPI_COLS / D_SLAB_COLS; ++slab) {
            tma_store_3d(&tmD, smem + SMEM_D + consumer * D_STAGE_BYTES + slab * D_SLAB_BYTES,
                         tile_n * BN + chunk * EPI_COLS + slab * D_SLAB_COLS, tile_m * BM + consumer * WG_ROWS, entry);
          }
          bulk_commit_group();
        }
"""
    copy = """        {
          // stg: 256 16-byte pieces (64 rows x 4), two a thread, from the swizzled slab to D
          static_assert(EPI_COLS == 32 && D_SLAB_COLS == 32, "stg edit: one 64-byte slab of 16-bit D a chunk");
          const unsigned long long d_base = reinterpret_cast<const unsigned long long *>(&tmD)[0];
          const int t = threadIdx.x % 128;
          #pragma unroll
          for (int i = 0; i < 2; ++i) {
            const int v = t + 128 * i, row = v / 4, col16 = v % 4;
            const u32 addr = staging + row * 64 + ((col16 ^ ((row >> 1) & 3)) << 4);
            u32 x0, x1, x2, x3;
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(addr));
            const long long grow = (long long)tile_m * BM + consumer * WG_ROWS + row;
            const long long gcol = (long long)tile_n * BN + chunk * EPI_COLS + col16 * 8;
            const unsigned long long gaddr = d_base + (unsigned long long)(grow * N + gcol) * 2;
            asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(gaddr), "r"(x0), "r"(x1), "r"(x2), "r"(x3) : "memory");
          }
        }
"""
    return replace_once(text, store, copy, "stg: the chunk's TMA store")


STAGING_FENCE = """        // staging writes must be visible to the TMA engine (async proxy)
        fence_proxy_async_smem();
"""


def nofence(text):
    """No async-proxy fence after a chunk is staged (right only with `stg`: its copies are generic)."""
    return replace_once(text, STAGING_FENCE, "", "nofence: the staging fence")


def nostore(text):
    """The staged chunk is not stored at all (D stays unwritten: for timing the staging alone)."""
    store = re.compile(r"        if \(leader\) \{\n          #pragma unroll\n          for \(int slab = 0; "
                       r"slab < EPI_COLS / D_SLAB_COLS; \+\+slab\) \{\n            tma_store_3d\(&tmD,.*?"
                       r"bulk_commit_group\(\);\n        \}\n", re.S)
    found = store.findall(text)
    if len(found) != 1:
        sys.exit(f"edit_kernel: nostore: the chunk's TMA store found {len(found)} times, want 1")
    return store.sub("        // nostore: the chunk stays in shared memory\n", text)


def twice(text):
    """The epilogue's chunk loop runs twice (the second time with its code in the instruction
    caches), consumer 0's leader stamping between them (the trace's `mid`; use with `trace`,
    after it in the list or before: the stamp names what `trace` declares)."""
    start = text.index("      #pragma unroll\n      for (int chunk = 0; chunk < ")
    end_mark = "      } // epilogue chunk\n"
    end = text.index(end_mark, start) + len(end_mark)
    if text.count(end_mark) != 1:
        sys.exit("edit_kernel: twice: the chunk loop's end found more than once")
    loop = text[start:end]
    stamp = "      if (trace_on && leader && consumer == 0) trace_stamps[blockIdx.x][9] = clock64() - trace_t0;\n"
    return text[:start] + loop + stamp + loop + text[end:]


def onestage(text):
    """The last (here: only) tile's chunks staged at once in the freed A stages, then stored.

    After both consumers' last wgmmas (a 256-thread named barrier, id 15), each chunk is staged in
    its own 4 KB of the A stages (14 of them: 56 of the 64 KB), with no wait and no barrier between
    chunks; one fence and one barrier, then the leader issues every chunk's TMA store. Right only
    where every CTA computes one tile (the producer loads nothing after it) and beta = 0 (C's
    chunks still land in the old staging tile): an experiment, verified at such shapes only.
    """
    loop = "      #pragma unroll\n      for (int chunk = 0; chunk < BN / EPI_COLS; ++chunk) {\n"
    text = replace_once(text, loop, """      static_assert(EPI_COLS == D_SLAB_COLS && 2 * (BN / EPI_COLS) * D_STAGE_BYTES <= SMEM_B - SMEM_A,
                    "onestage: one slab a chunk, every chunk of both consumers in the A stages");
      named_barrier_sync(15, 256);  // onestage: both consumers' wgmmas done, the stages free
""" + loop, "onestage: the chunk loop")
    wait = """        if (leader) {
          bulk_wait_group_read<0>();  // staging tile free again
        }
        named_barrier_sync(EPILOGUE_BAR_ID + consumer % EPILOGUE_BAR_SLOTS, EPILOGUE_BAR_THREADS);
"""
    text = replace_once(text, wait, "", "onestage: the chunk's wait")
    text = replace_once(text, "        const u32 staging = smem + SMEM_D + consumer * D_STAGE_BYTES;\n",
                        "        const u32 staging = smem + SMEM_A + (consumer * (BN / EPI_COLS) + chunk) * D_STAGE_BYTES;\n",
                        "onestage: the staging address")
    tail = STAGING_FENCE + """        named_barrier_sync(EPILOGUE_BAR_ID + consumer % EPILOGUE_BAR_SLOTS, EPILOGUE_BAR_THREADS);
        if (leader) {
          #pragma unroll
          for (int slab = 0; slab < EPI_COLS / D_SLAB_COLS; ++slab) {
            tma_store_3d(&tmD, smem + SMEM_D + consumer * D_STAGE_BYTES + slab * D_SLAB_BYTES,
                         tile_n * BN + chunk * EPI_COLS + slab * D_SLAB_COLS, tile_m * BM + consumer * WG_ROWS, entry);
          }
          bulk_commit_group();
        }
      } // epilogue chunk
"""
    return replace_once(text, tail, """      } // epilogue chunk
""" + STAGING_FENCE.replace("        ", "      ") + """      named_barrier_sync(EPILOGUE_BAR_ID + consumer % EPILOGUE_BAR_SLOTS, EPILOGUE_BAR_THREADS);
      if (leader) {
        #pragma unroll
        for (int chunk = 0; chunk < BN / EPI_COLS; ++chunk)
          tma_store_3d(&tmD, smem + SMEM_A + (consumer * (BN / EPI_COLS) + chunk) * D_STAGE_BYTES,
                       tile_n * BN + chunk * EPI_COLS, tile_m * BM + consumer * WG_ROWS, entry);
        bulk_commit_group();
      }
""", "onestage: the chunk's store")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    text = sys.stdin.read()
    edits = {"early": early, "trace": trace, "stg": stg, "nofence": nofence, "nostore": nostore,
             "twice": twice, "onestage": onestage}
    for edit in sys.argv[1].split(","):
        if edit not in edits:
            sys.exit(f"edit_kernel: unknown edit {edit!r} ({', '.join(edits)})")
        text = edits[edit](text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()

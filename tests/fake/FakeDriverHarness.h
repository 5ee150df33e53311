//===- FakeDriverHarness.h - What the fake-driver tests share ---*- C++ -*-===//
//
// The harness of FakeDriverTest.cpp, FakeDriverLayoutsTest.cpp,
// FakeDriverStagingTest.cpp, FakeDriverGroupedTest.cpp,
// FakeDriverSplitKFp8Test.cpp and FakeDriverNarrowTest.cpp: the stand-in
// libcuda (tests/fake/FakeCuda.cpp) loaded as GEMMGEN_LIBCUDA with its log and
// context hooks, one Runtime and specs/sm90/05_fast_f16.yaml compiled for the
// whole binary (Fake, REQUIRE_FAKE), and the launches the tests build on
// (args: an M×N×K problem at fixed addresses, A and B packed; groupedFastF16:
// spec 05 compiled grouped; specWithScheduler: a spec with more scheduler
// keys).
//
//===----------------------------------------------------------------------===//
#ifndef GEMMGEN_TESTS_FAKE_FAKEDRIVERHARNESS_H
#define GEMMGEN_TESTS_FAKE_FAKEDRIVERHARNESS_H

#include "gemmgen/KernelABI.h"
#include "gemmgen/gemmgen.h"

#include "../SpecText.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace gemmgen::faketest {

struct Fake {
  const char *(*log)() = nullptr;
  void (*clear)() = nullptr;
  CUcontext (*primary)() = nullptr;
  CUcontext (*current)() = nullptr;
  void (*setCurrent)(CUcontext) = nullptr;
  std::optional<Runtime> rt;
  std::optional<Kernel> kernel; ///< specs/sm90/05_fast_f16.yaml
  std::string why;

  static Fake &get() {
    static Fake f;
    return f;
  }
  Fake() {
    setenv("GEMMGEN_LIBCUDA", GEMMGEN_FAKE_CUDA, 1);
    void *lib = dlopen(GEMMGEN_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      why = dlerror();
      return;
    }
    log = (const char *(*)())dlsym(lib, "fakecuda_log");
    clear = (void (*)())dlsym(lib, "fakecuda_clear");
    primary = (CUcontext(*)())dlsym(lib, "fakecuda_primary");
    current = (CUcontext(*)())dlsym(lib, "fakecuda_current");
    setCurrent = (void (*)(CUcontext))dlsym(lib, "fakecuda_set_current");
    Expected<Runtime> r = Runtime::open();
    if (!r) {
      why = r.status().message();
      return;
    }
    rt = *r;
    Expected<Kernel> k = rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) +
                                         "/specs/sm90/05_fast_f16.yaml");
    if (!k) {
      why = k.status().message();
      return;
    }
    kernel = *k;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(log());
    for (std::string l; std::getline(in, l);)
      out.push_back(l);
    return out;
  }
};

#define REQUIRE_FAKE()                                                                           \
  Fake &fake = Fake::get();                                                                      \
  ASSERT_TRUE(fake.kernel.has_value()) << fake.why

/// specs/sm90/05_fast_f16.yaml compiled grouped (scheduler.grouped).
inline Expected<Kernel> groupedFastF16(Fake &fake) {
  CompileOptions opts;
  opts.spec.grouped = true;
  return fake.rt->compileFile(std::string(GEMMGEN_SOURCE_DIR) + "/specs/sm90/05_fast_f16.yaml",
                              opts);
}

inline GemmArgs args(long long M, long long N, long long K, long long ldd) {
  return GemmArgs{0x1000000, 0x2000000, 0x3000000, M, N, K, 0, 0, ldd};
}

/// specs/sm90/`file` with `group: 16 }` ending its scheduler line replaced
/// by `group: 16, <more> }` (throws where there is no such line).
inline std::string specWithScheduler(const std::string &file, const std::string &more) {
  return gemmgen::testing::withEdit(gemmgen::testing::specText("sm90/" + file), "group: 16 }",
                                    "group: 16, " + more + " }");
}

} // namespace gemmgen::faketest

#endif // GEMMGEN_TESTS_FAKE_FAKEDRIVERHARNESS_H

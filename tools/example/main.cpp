// A minimal host application: open the GPU through gemmgen::Runtime, compile
// a kernel spec, allocate with the driver API through the Runtime, run one
// GEMM D = A·B^T on the caller's stream, and check it against a CPU
// reference on sampled elements.
//
//   gemmgen_example SPEC.yaml [M N K]
//   gemmgen_example auto [M N K]        (the library's choice for the shape, f16)
//
// Exit codes: 0 ok, 1 wrong result, 2 no CUDA driver/GPU, 3 other errors.
#include <gemmgen/gemmgen.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

// float <-> 16-bit on the host (round to nearest even).
uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
float fromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t toF16(float f) { // normal range only (the example's values are small)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  int32_t exp = (int32_t)((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffffu;
  if (exp <= 0)
    return (uint16_t)sign; // flush tiny values to zero
  if (exp >= 31)
    return (uint16_t)(sign | 0x7c00u);
  uint32_t h = ((uint32_t)exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h;
  return (uint16_t)(sign | h);
}
float fromF16(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t u;
  if (exp == 0)
    return (sign ? -1.f : 1.f) * std::ldexp((float)mant, -24);
  if (exp == 31)
    u = sign | 0x7f800000u | (mant << 13);
  else
    u = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int fail(const gemmgen::Status &s) {
  std::fprintf(stderr, "gemmgen_example: error: %s\n", s.message().c_str());
  return s.code() == gemmgen::ErrorCode::NoDriver ? 2 : 3;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: %s SPEC.yaml|auto [M N K]\n", argv[0]);
    return 3;
  }
  const long long M = argc == 5 ? std::atoll(argv[2]) : 1000;
  const long long N = argc == 5 ? std::atoll(argv[3]) : 1000; // any M, N; K % 8 == 0
  const long long K = argc == 5 ? std::atoll(argv[4]) : 512;

  gemmgen::Expected<gemmgen::Runtime> rt = gemmgen::Runtime::open();
  // `auto`: the cost model's spec for the shape and this GPU's L2 and SMs (no GPU
  // needed to choose: without one, the H200's, where its rules were measured).
  const bool chosen = std::strcmp(argv[1], "auto") == 0;
  gemmgen::ChoiceOptions options;
  if (rt)
    options.takeGpu(rt->device());
  gemmgen::Expected<gemmgen::KernelChoice> choice =
      chosen ? gemmgen::chooseKernel(M, N, K, gemmgen::DType::F16, options)
             : gemmgen::Status::error(gemmgen::ErrorCode::InvalidArgument, "a spec file");
  if (chosen && !choice)
    return fail(choice.status());
  if (chosen)
    std::printf("chosen: %s\n", choice->reason.c_str());
  if (!rt)
    return fail(rt.status());
  gemmgen::Expected<gemmgen::Kernel> kernel =
      chosen ? rt->compileString(choice->specYaml, choice->name) : rt->compileFile(argv[1]);
  if (!kernel)
    return fail(kernel.status());
  const gemmgen::KernelInfo &info = kernel->info();
  std::printf("%s: %s %s on %s\n", argv[1], info.name.c_str(), gemmgen::toString(info.dtype),
              rt->device().name.c_str());

  // Host data: uniform in [-1, 1), rounded to the kernel's 16-bit type.
  const bool bf16 = info.dtype == gemmgen::DType::BF16;
  auto to16 = bf16 ? toBf16 : toF16;
  auto from16 = bf16 ? fromBf16 : fromF16;
  const long long ldd = (N + 7) / 8 * 8; // D rows 16-byte aligned for the TMA store
  std::vector<uint16_t> A(M * K), B(N * K), D(M * ldd);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto &x : A)
    x = to16(dist(rng));
  for (auto &x : B)
    x = to16(dist(rng));

  // Device memory through the Runtime (cuMemAlloc), the caller's stream.
  gemmgen::Expected<CUdeviceptr> dA = rt->alloc(A.size() * 2), dB = rt->alloc(B.size() * 2),
                                 dD = rt->alloc(D.size() * 2);
  if (!dA || !dB || !dD)
    return fail(!dA ? dA.status() : !dB ? dB.status() : dD.status());
  gemmgen::Expected<CUstream> stream = rt->createStream();
  if (!stream)
    return fail(stream.status());
  if (gemmgen::Status s = rt->copyToDevice(*dA, A.data(), A.size() * 2); !s)
    return fail(s);
  if (gemmgen::Status s = rt->copyToDevice(*dB, B.data(), B.size() * 2); !s)
    return fail(s);

  gemmgen::GemmArgs args{*dA, *dB, *dD, M, N, K, K, K, ldd};
  if (gemmgen::Status s = kernel->launch(args, *stream); !s)
    return fail(s);
  if (gemmgen::Status s = rt->wait(*stream, gemmgen::watchdogSeconds(M, N, K)); !s)
    return fail(s); // on a timeout the process should exit (context unusable)
  if (gemmgen::Status s = rt->copyToHost(D.data(), *dD, D.size() * 2); !s)
    return fail(s);

  // Check 4096 sampled elements (and the four corners) against a double
  // reference: the error is the 16-bit rounding of D.
  std::vector<std::pair<long long, long long>> samples = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
  std::uniform_int_distribution<long long> rm(0, M - 1), rn(0, N - 1);
  for (int i = 0; i < 4096; ++i)
    samples.emplace_back(rm(rng), rn(rng));
  double err2 = 0, ref2 = 0;
  for (auto [m, n] : samples) {
    double ref = 0;
    for (long long k = 0; k < K; ++k)
      ref += (double)from16(A[m * K + k]) * (double)from16(B[n * K + k]);
    double got = from16(D[m * ldd + n]);
    if (!std::isfinite(got)) {
      std::printf("D[%lld,%lld] is not finite\n", m, n);
      return 1;
    }
    err2 += (got - ref) * (got - ref);
    ref2 += ref * ref;
  }
  const double rel = std::sqrt(err2 / ref2);
  std::printf("M=%lld N=%lld K=%lld: relative error %.3e on %zu sampled elements: %s\n", M, N, K,
              rel, samples.size(), rel < gemmgen::GemmVerifier::kTolerance ? "ok" : "WRONG");
  (void)rt->free(*dA);
  (void)rt->free(*dB);
  (void)rt->free(*dD);
  (void)rt->destroyStream(*stream);
  return rel < gemmgen::GemmVerifier::kTolerance ? 0 : 1;
}

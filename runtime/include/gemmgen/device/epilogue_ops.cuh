// gemmgen/device/epilogue_ops.cuh — the epilogue chain's ops, on host and device.
//
// One definition of what each step of `epilogue.chain` computes (docs/SPEC.md): generated
// kernels call these functions for the steps their spec lists (inlined, in registers, before
// D's store); the runtime's tail-column kernel, the verifier's reference and the simulator
// interpret a chain given as data (Chain, apply_chain), so that what is simulated and checked is
// what the kernels compute.
//
// The header needs no std library on the device (NVRTC takes it as it is); on the host it uses
// <cmath>. The activations use the precise single-precision functions (tanhf, erff, expf).
#ifndef GEMMGEN_DEVICE_EPILOGUE_OPS_CUH
#define GEMMGEN_DEVICE_EPILOGUE_OPS_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GEMMGEN_EPI_HD __host__ __device__ __forceinline__
#else
#define GEMMGEN_EPI_HD inline
#include <cmath>
#endif

namespace gemmgen {
namespace epilogue {

// The chain's steps (the values of gemmgen::EpilogueOpKind, with bias split by its axis).
enum Op : int {
  OP_BIAS_ROW = 1,
  OP_BIAS_COLUMN = 2,
  OP_RELU = 3,
  OP_GELU_TANH = 4,
  OP_GELU_ERF = 5,
  OP_SILU = 6,
  OP_RESIDUAL = 7,
  OP_CLAMP = 8,
  OP_SCALE = 9
};
// Element types of a bias vector.
enum BiasType : int { BIAS_F16 = 0, BIAS_BF16 = 1, BIAS_F32 = 2 };

GEMMGEN_EPI_HD float bits_to_float(unsigned u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// An IEEE half's bits as a float (subnormals, infinities and NaN kept).
GEMMGEN_EPI_HD float f16_bits_to_float(unsigned h) {
  const unsigned sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1fu) return bits_to_float(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return bits_to_float(sign | ((exp + 112u) << 23) | (man << 13));
  // subnormal (or zero): man * 2^-24
  const float mag = float(man) * 5.9604644775390625e-8f;
  return sign ? -mag : mag;
}

GEMMGEN_EPI_HD float load_bias(const void *bias, int type, long long i) {
  if (type == BIAS_F32) return static_cast<const float *>(bias)[i];
  const unsigned bits = static_cast<const unsigned short *>(bias)[i];
  return type == BIAS_BF16 ? bits_to_float(bits << 16) : f16_bits_to_float(bits);
}

GEMMGEN_EPI_HD float relu(float x) { return x > 0.f ? x : 0.f; }
GEMMGEN_EPI_HD float gelu_tanh(float x) {
  // 0.7978845608 = sqrt(2 / pi)
  return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
GEMMGEN_EPI_HD float gelu_erf(float x) { return 0.5f * x * (1.f + erff(x * 0.7071067811865476f)); }
GEMMGEN_EPI_HD float silu(float x) { return x / (1.f + expf(-x)); }
GEMMGEN_EPI_HD float clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }

// The forms generated kernels call: on the device the hardware approximations (tanh.approx,
// max relative error 2^-10.99 per the PTX ISA; ex2.approx through __expf and a fast divide),
// a few instructions per element where tanhf and expf take tens, which the epilogue's time
// shows at 4096^3 (docs/PERF.md). On the host (the simulator) the precise forms above, which
// the reference also uses: the GPU tests measure the difference.
GEMMGEN_EPI_HD float tanh_fast(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return tanhf(x);
#endif
}
GEMMGEN_EPI_HD float gelu_tanh_fast(float x) {
  // the same function as gelu_tanh in five instructions and a tanh: u = sqrt(2/pi)·(x + 0.044715x^3)
  const float u = x * fmaf(0.0356774081f, x * x, 0.7978845608f);
  const float hx = 0.5f * x;
  return fmaf(hx, tanh_fast(u), hx);
}
// gelu_tanh_fast(2h) from h = x/2, for a kernel whose alpha, beta and bias carry the 1/2
// (KernelPlan's chain entry): u = h·(2c0 + 8c1·h²) and h·(1 + tanh u). The constants are
// gelu_tanh_fast's times powers of two, so for a normal h every rounding is the same one
// scaled: the result is bit for bit gelu_tanh_fast(2h), one multiply fewer.
GEMMGEN_EPI_HD float gelu_tanh_half_fast(float h) {
  const float u = h * fmaf(8.f * 0.0356774081f, h * h, 2.f * 0.7978845608f);
  return fmaf(h, tanh_fast(u), h);
}
GEMMGEN_EPI_HD float silu_fast(float x) {
#if defined(__CUDA_ARCH__)
  return __fdividef(x, 1.f + __expf(-x));  // x / inf (x << 0) gives -0, silu's limit
#else
  return silu(x);
#endif
}

// A chain as data, for code that is not generated per spec.
constexpr int kMaxChainSteps = 8;
struct Chain {
  int steps = 0;
  int op[kMaxChainSteps] = {};
  float lo[kMaxChainSteps] = {}, hi[kMaxChainSteps] = {};
  const void *bias = nullptr;  // the bias step's vector (entry l at bias + l * bias_stride)
  int bias_type = BIAS_F32;
  long long bias_stride = 0;
  const float *scale_d = nullptr;  // the scale step's scalar (null: 1)
};

GEMMGEN_EPI_HD bool has_residual(const Chain &c) {
  for (int s = 0; s < c.steps; ++s)
    if (c.op[s] == OP_RESIDUAL) return true;
  return false;
}

// D's value before rounding to its type: v = alpha * acc, beta_c = beta * C (0 when beta = 0),
// at D's (row, col) of batch entry `entry`. beta * C joins before the chain, or at its residual
// step.
GEMMGEN_EPI_HD float apply_chain(const Chain &c, float v, float beta_c, long long row,
                                 long long col, long long entry) {
  if (!has_residual(c)) v += beta_c;
  for (int s = 0; s < c.steps; ++s) {
    switch (c.op[s]) {
    case OP_BIAS_ROW: v += load_bias(c.bias, c.bias_type, entry * c.bias_stride + row); break;
    case OP_BIAS_COLUMN: v += load_bias(c.bias, c.bias_type, entry * c.bias_stride + col); break;
    case OP_RELU: v = relu(v); break;
    case OP_GELU_TANH: v = gelu_tanh(v); break;
    case OP_GELU_ERF: v = gelu_erf(v); break;
    case OP_SILU: v = silu(v); break;
    case OP_RESIDUAL: v += beta_c; break;
    case OP_CLAMP: v = clamp(v, c.lo[s], c.hi[s]); break;
    case OP_SCALE: v *= c.scale_d ? *c.scale_d : 1.f; break;
    default: break;
    }
  }
  return v;
}

}  // namespace epilogue
}  // namespace gemmgen

#endif  // GEMMGEN_DEVICE_EPILOGUE_OPS_CUH

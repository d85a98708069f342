#include "nn/cpu/host_backend.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "kernels/common/cpu/cpu_task_workers.hpp"
#include "ktune/device.hpp"
#include "ktune/error.hpp"

namespace ktune::nn::cpu {

std::string HostBackend::device() const {
  static const std::string name =
      fmt::format("{} ({} threads)", query_cpu_device().name, omp_get_max_threads());
  return name;
}

float* HostBackend::alloc(size_t floats) {
  // 64-byte aligned (cache lines, AVX-512 loads); aligned_alloc needs a multiple of the alignment.
  const size_t bytes = (std::max<size_t>(floats, 1) * sizeof(float) + 63) / 64 * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!p) throw Error(fmt::format("{}: out of memory allocating {} bytes", name(), bytes));
  buffers_.emplace_back(p);
  return p;
}

void HostBackend::upload(float* dst, const float* host, size_t floats) {
  std::memcpy(dst, host, floats * sizeof(float));
}

void HostBackend::download(float* host, const float* src, size_t floats) {
  std::memcpy(host, src, floats * sizeof(float));
}

namespace {

// Pooling over NHWC of output rows [begin, end) (row = image × output line): start(o) sets a
// channel vector, fold(o, src) folds one window cell in, finish(o) ends it; padded cells are
// skipped.
template <class Start, class Fold, class Finish>
void pool(const PoolDesc& d, const float* in, float* out, int64_t begin, int64_t end, Start start,
          Fold fold, Finish finish) {
  const int64_t p = d.p(), q = d.q();
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / p, y = row % p;
    for (int64_t x = 0; x < q; ++x) {
      float* o = out + (row * q + x) * d.c;
      start(o);
      for (int64_t i = 0; i < d.window; ++i) {
        const int64_t iy = y * d.stride - d.pad + i;
        if (iy < 0 || iy >= d.h) continue;
        for (int64_t j = 0; j < d.window; ++j) {
          const int64_t ix = x * d.stride - d.pad + j;
          if (ix >= 0 && ix < d.w) fold(o, in + ((b * d.h + iy) * d.w + ix) * d.c);
        }
      }
      finish(o);
    }
  }
}

}  // namespace

void HostBackend::parallel_for(int64_t n, RangeFn run, const void* body) {
  // The team's threads on distinct CPUs first, as the conv plans' regions do
  // (cpu_task_workers.hpp): the oneDNN backends' pooling and adds spread a team that was woken
  // onto one core, so oneDNN's next calls do not inherit it.
  kernels::cpu_conv::TeamCpus cpus;
#pragma omp parallel
  {
    cpus.claim();
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    run(body, n * t / threads, n * (t + 1) / threads);
  }
}

void HostBackend::max_pool(const PoolDesc& d, const float* in, float* out) {
  const int64_t c = d.c;
  parallel(d.n * d.p(), [&](int64_t begin, int64_t end) {
    pool(
        d, in, out, begin, end,
        [c](float* o) { std::fill_n(o, c, -std::numeric_limits<float>::infinity()); },
        [c](float* o, const float* src) {
          for (int64_t ch = 0; ch < c; ++ch) o[ch] = std::max(o[ch], src[ch]);
        },
        [](float*) {});
  });
}

void HostBackend::avg_pool(const PoolDesc& d, const float* in, float* out) {
  const int64_t c = d.c;
  const float scale = 1.0f / float(d.window * d.window);  // padding counts (PyTorch's default)
  parallel(d.n * d.p(), [&](int64_t begin, int64_t end) {
    pool(
        d, in, out, begin, end, [c](float* o) { std::fill_n(o, c, 0.0f); },
        [c](float* o, const float* src) {
          for (int64_t ch = 0; ch < c; ++ch) o[ch] += src[ch];
        },
        [c, scale](float* o) {
          for (int64_t ch = 0; ch < c; ++ch) o[ch] *= scale;
        });
  });
}

void HostBackend::add(const float* a, const float* b, float* out, size_t count, bool relu) {
  parallel(int64_t(count), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float v = a[i] + b[i];
      out[i] = relu ? std::max(v, 0.0f) : v;
    }
  });
}

void HostBackend::copy_channels(const float* src, int64_t src_c, float* dst, int64_t dst_c,
                                int64_t offset, int64_t pixels) {
  parallel(pixels, [&](int64_t begin, int64_t end) {
    for (int64_t px = begin; px < end; ++px)
      std::copy_n(src + px * src_c, src_c, dst + px * dst_c + offset);
  });
}

void HostBackend::clamp(const float* in, float* out, size_t count, float lo, float hi) {
  parallel(int64_t(count), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = std::min(std::max(in[i], lo), hi);
  });
}

void HostBackend::softmax(int64_t batch, int64_t classes, const float* x, float* y) {
  for (int64_t b = 0; b < batch; ++b) {
    const float* row = x + b * classes;
    float* o = y + b * classes;
    const float top = *std::max_element(row, row + classes);
    double sum = 0;
    for (int64_t i = 0; i < classes; ++i) sum += (o[i] = std::exp(row[i] - top));
    const auto inv = float(1.0 / sum);
    for (int64_t i = 0; i < classes; ++i) o[i] *= inv;
  }
}

namespace {
TimingClock g_clock = nullptr;
}  // namespace

void set_timing_clock(TimingClock clock) { g_clock = clock; }

double timing_clock_ms() {
  if (g_clock) return g_clock();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void HostBackend::reserve_marks(int n) { marks_.assign(size_t(std::max(n, 0)), 0.0); }

void HostBackend::mark(int i) { marks_.at(size_t(i)) = timing_clock_ms(); }

double HostBackend::elapsed_ms(int i, int j) { return marks_.at(size_t(j)) - marks_.at(size_t(i)); }

void CopyingBackend::prepare_conv(int layer, const ConvDesc& d, const float* filter,
                                  const float* bias) {
  store(layer, {std::vector<float>(filter, filter + d.k * d.r * d.s * d.c),
                std::vector<float>(bias, bias + d.k)});
}

void CopyingBackend::prepare_fc(int layer, const FcDesc& d, const float* weight,
                                const float* bias) {
  store(layer, {std::vector<float>(weight, weight + d.out * d.in),
                std::vector<float>(bias, bias + d.out)});
}

const CopyingBackend::Params& CopyingBackend::params(int layer) const {
  const auto it = params_.find(layer);
  if (it == params_.end()) throw Error(fmt::format("{}: layer {} was not prepared", name(), layer));
  return it->second;
}

void bias_relu(float* out, const float* bias, int64_t rows, int64_t k, bool relu) {
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    float* o = out + row * k;
    if (relu) {
      for (int64_t i = 0; i < k; ++i) o[i] = std::max(o[i] + bias[i], 0.0f);
    } else {
      for (int64_t i = 0; i < k; ++i) o[i] += bias[i];
    }
  }
}

}  // namespace ktune::nn::cpu

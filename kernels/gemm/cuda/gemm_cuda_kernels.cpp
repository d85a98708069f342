#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "src/cuda/cuda_error.hpp"

namespace ktune::embedded {
const std::map<std::string, std::string>& files();
}

namespace ktune::gemm::cuda {
namespace {

using ktune::cuda::CompileError;
using ktune::cuda::CubinImage;
using ktune::cuda::CudaError;

int tile_key(const Tile& t) { return t.r * 100 + t.a * 10 + t.c; }

bool valid_tile(const Tile& t) {
  auto ok = [](int v) { return v == 1 || v == 2 || v == 4 || v == 8; };
  return ok(t.r) && ok(t.a) && ok(t.c);
}

std::string tile_name(const Tile& t) { return fmt::format("r={};a={};c={}", t.r, t.a, t.c); }

}  // namespace

const std::string& embedded_source(const std::string& file_name) {
  const auto& table = ktune::embedded::files();
  const auto it = table.find(file_name);
  if (it == table.end()) {
    throw Error("embedded kernel source '" + file_name + "' is missing from this build");
  }
  return it->second;
}

std::string seed_name_expression(const Tile& tile) {
  return fmt::format("ktune_gemm_seed<{},{},{}>", tile.r, tile.a, tile.c);
}

std::vector<std::string> seed_compile_options() { return {"--std=c++17"}; }

SeedKernels::SeedKernels(std::string arch, std::string source)
    : arch_(std::move(arch)),
      source_(source.empty() ? embedded_source("gemm_seed.cuh") : std::move(source)) {}

ktune::cuda::NvrtcRequest SeedKernels::request(const Tile& tile) const {
  return {source_, "gemm_seed.cu", seed_name_expression(tile), arch_, seed_compile_options()};
}

void SeedKernels::install(const Tile& tile, const CubinImage* image, const std::string& error,
                          bool compile_error) {
  Entry entry;
  if (image) {
    try {
      entry.kernel = std::make_unique<LoadedKernel>(*image, seed_name_expression(tile));
      if (image->from_cache) ++cache_hits_;
    } catch (const CudaError& e) {
      if (e.sticky()) throw;
      entry.error = e.what();
    }
  } else {
    entry.error = error;
    entry.compile_error = compile_error;
  }
  entries_[tile_key(tile)] = std::move(entry);
}

void SeedKernels::prepare(const std::vector<Tile>& tiles, unsigned threads) {
  std::vector<Tile> todo;
  {
    std::lock_guard lock(mutex_);
    for (const Tile& t : tiles) {
      if (!valid_tile(t)) throw Error("gemm cuda: tile " + tile_name(t) + " is not in {1,2,4,8}^3");
      const bool seen = entries_.count(tile_key(t)) > 0 ||
                        std::any_of(todo.begin(), todo.end(),
                                    [&](const Tile& u) { return tile_key(u) == tile_key(t); });
      if (!seen) todo.push_back(t);
    }
  }
  if (todo.empty()) return;

  // NVRTC is thread-safe: compile in parallel, load afterwards on this thread (whose current
  // device is the backend's).
  std::vector<std::optional<CubinImage>> images(todo.size());
  std::vector<std::string> errors(todo.size());
  std::vector<char> compile_errors(todo.size(), 0);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < todo.size(); i = next++) {
      try {
        images[i] = ktune::cuda::compile_cubin(request(todo[i]));
      } catch (const CompileError& e) {
        errors[i] = e.what();
        compile_errors[i] = 1;
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<size_t>(threads, todo.size()));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < todo.size(); ++i) {
    install(todo[i], images[i] ? &*images[i] : nullptr, errors[i], compile_errors[i] != 0);
  }
}

const LoadedKernel& SeedKernels::get(const Tile& tile) {
  {
    std::lock_guard lock(mutex_);
    if (entries_.count(tile_key(tile)) == 0) {
      if (!valid_tile(tile)) {
        throw Error("gemm cuda: tile " + tile_name(tile) + " is not in {1,2,4,8}^3");
      }
    }
  }
  prepare({tile}, 1);
  std::lock_guard lock(mutex_);
  const Entry& entry = entries_.at(tile_key(tile));
  if (entry.kernel) return *entry.kernel;
  if (entry.compile_error) throw CompileError(entry.error, "");
  throw CudaError(entry.error, 0, false);
}

LaunchResult launch_seed(const LoadedKernel& kernel, const Tile& tile, const Shape& shape,
                         float alpha, const float* a, const float* b, float beta, float* c,
                         cudaStream_t stream) {
  const std::string what = fmt::format("ktune_gemm_seed r={};a={};c={};wg={}x{}", tile.r, tile.a,
                                       tile.c, tile.wg_x, tile.wg_y);
  if (shape.m <= 0 || shape.n <= 0 || shape.batch <= 0) return {};  // nothing to compute
  if (tile.wg_x <= 0 || tile.wg_y <= 0) {
    return {Status::refused, what + ": work-group sizes must be positive"};
  }
  const int threads = tile.wg_x * tile.wg_y;
  const cudaFuncAttributes& attr = kernel.attributes();
  if (threads > attr.maxThreadsPerBlock) {
    return {Status::refused,
            fmt::format("{}: {} threads per block exceed this kernel's limit of {} ({} registers "
                        "per thread)",
                        what, threads, attr.maxThreadsPerBlock, attr.numRegs)};
  }
  const int64_t tile_m = int64_t(tile.wg_x) * tile.r;
  const int64_t tile_n = int64_t(tile.wg_y) * tile.c;
  const int64_t blocks_m = (shape.m + tile_m - 1) / tile_m;
  const int64_t blocks_n = (shape.n + tile_n - 1) / tile_n;
  if (blocks_m > 2147483647LL || shape.batch > 65535) {
    return {Status::refused, fmt::format("{}: grid {}x{}x{} exceeds the CUDA grid limits", what,
                                         blocks_m, blocks_n, shape.batch)};
  }
  const dim3 grid(unsigned(blocks_m), unsigned(std::min<int64_t>(blocks_n, 65535)),
                  unsigned(shape.batch));
  const dim3 block(unsigned(tile.wg_x), unsigned(tile.wg_y), 1);

  // Argument storage must match the kernel's parameter types exactly.
  int transa = shape.transa ? 1 : 0, transb = shape.transb ? 1 : 0;
  long long m = shape.m, n = shape.n, k = shape.k;
  long long lda = shape.lda, ldb = shape.ldb, ldc = shape.ldc;
  long long stride_a = shape.stride_a(), stride_b = shape.stride_b(), stride_c = shape.stride_c();
  void* args[] = {&transa,   &transb, &m,   &n,        &k,    &alpha, &a,   &lda,
                  &stride_a, &b,      &ldb, &stride_b, &beta, &c,     &ldc, &stride_c};

  cudaError_t error = cudaLaunchKernel(kernel.function(), grid, block, args, 0, stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  if (error == cudaSuccess) return {};
  const std::string call = fmt::format("cudaLaunchKernel({}, grid {}x{}x{}, block {}x{})", what,
                                       grid.x, grid.y, grid.z, block.x, block.y);
  if (error == cudaErrorLaunchOutOfResources || error == cudaErrorInvalidConfiguration) {
    const std::string message = fmt::format("{}: {} ({} registers per thread)", call,
                                            ktune::cuda::error_text(error), attr.numRegs);
    (void)cudaGetLastError();
    return {Status::refused, message};
  }
  return {Status::failed, ktune::cuda::describe_failure(error, call)};
}

RelErrorKernel::RelErrorKernel(const std::string& arch) : partials_(2 * kMaxBlocks, "partials") {
  const ktune::cuda::NvrtcRequest request{embedded_source("gemm_verify.cuh"),
                                          "gemm_verify.cu",
                                          "ktune_gemm_rel_error_partials",
                                          arch,
                                          {"--std=c++17"}};
  kernel_ = std::make_unique<LoadedKernel>(ktune::cuda::compile_cubin(request),
                                           "ktune_gemm_rel_error_partials");
}

double RelErrorKernel::operator()(const float* c, const double* ref, const Shape& shape,
                                  cudaStream_t stream) {
  const int64_t total = shape.m * shape.n * shape.batch;
  if (total <= 0) return 0;
  const int blocks = int(std::min<int64_t>((total + kThreads - 1) / kThreads, kMaxBlocks));
  long long ldc = shape.ldc, stride_c = shape.stride_c();
  long long m = shape.m, n = shape.n, batch = shape.batch;
  double* partials = partials_.data();
  void* args[] = {&c, &ldc, &stride_c, &ref, &m, &n, &batch, &partials};
  ktune::cuda::check(cudaLaunchKernel(kernel_->function(), dim3(unsigned(blocks)),
                                      dim3(unsigned(kThreads)), args, 0, stream),
                     "cudaLaunchKernel(ktune_gemm_rel_error_partials)");
  ktune::cuda::check(cudaGetLastError(), "launch of ktune_gemm_rel_error_partials");
  std::vector<double> host(size_t(2) * blocks);
  ktune::cuda::check(cudaMemcpyAsync(host.data(), partials, host.size() * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream),
                     "cudaMemcpyAsync(verification partials)");
  ktune::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(verification)");
  double diff = 0, norm = 0;
  for (int i = 0; i < blocks; ++i) {
    diff += host[2 * size_t(i)];
    norm += host[2 * size_t(i) + 1];
  }
  if (norm == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff) / std::sqrt(norm);
}

}  // namespace ktune::gemm::cuda

#include "kernels/common/cuda/gemm_kernel_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "ktune/cuda/cuda_error.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::gemm::cuda {

using ktune::cuda::CompileError;
using ktune::cuda::CubinImage;
using ktune::cuda::CudaError;

std::vector<std::string> seed_compile_options() { return {"--std=c++17"}; }

KernelCache::KernelCache(std::string arch, std::string source, std::string file_name)
    : arch_(std::move(arch)), source_(std::move(source)), file_name_(std::move(file_name)) {}

void KernelCache::install(const std::string& name, const CubinImage* image,
                          const std::string& error, bool compile_error) {
  Entry entry;
  if (image) {
    try {
      entry.kernel = std::make_unique<LoadedKernel>(*image, name);
      if (image->from_cache) ++cache_hits_;
    } catch (const CudaError& e) {
      if (e.sticky()) throw;
      entry.error = e.what();
    }
  } else {
    entry.error = error;
    entry.compile_error = compile_error;
  }
  entries_[name] = std::move(entry);
}

void KernelCache::prepare(const std::vector<std::string>& names, unsigned threads) {
  std::vector<std::string> todo;
  {
    std::lock_guard lock(mutex_);
    for (const std::string& name : names)
      if (entries_.count(name) == 0 && std::find(todo.begin(), todo.end(), name) == todo.end())
        todo.push_back(name);
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
        images[i] = ktune::cuda::compile_cubin(
            {source_, file_name_, todo[i], arch_, seed_compile_options()});
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

const LoadedKernel& KernelCache::get(const std::string& name) {
  prepare({name}, 1);
  std::lock_guard lock(mutex_);
  const Entry& entry = entries_.at(name);
  if (entry.kernel) return *entry.kernel;
  if (entry.compile_error) throw CompileError(entry.error, "");
  throw CudaError(entry.error, 0, false);
}

RelErrorKernel::RelErrorKernel(const std::string& arch) : partials_(2 * kMaxBlocks, "partials") {
  const ktune::cuda::NvrtcRequest request{ktune::embedded_file("gemm_verify.cuh"),
                                          "gemm_verify.cu",
                                          "ktune_gemm_rel_error_partials",
                                          arch,
                                          {"--std=c++17"}};
  kernel_ = std::make_unique<LoadedKernel>(ktune::cuda::compile_cubin(request),
                                           "ktune_gemm_rel_error_partials");
}

double RelErrorKernel::operator()(const void* c, int c_type, const double* ref, const Shape& shape,
                                  cudaStream_t stream) {
  const int64_t total = shape.m * shape.n * shape.batch;
  if (total <= 0) return 0;
  const int blocks = int(std::min<int64_t>((total + kThreads - 1) / kThreads, kMaxBlocks));
  long long ldc = shape.ldc, stride_c = shape.stride_c();
  long long m = shape.m, n = shape.n, batch = shape.batch;
  double* partials = partials_.data();
  void* args[] = {&c, &c_type, &ldc, &stride_c, &ref, &m, &n, &batch, &partials};
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

}  // namespace ktune::kernels::gemm::cuda

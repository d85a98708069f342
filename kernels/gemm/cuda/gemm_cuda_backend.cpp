#include "kernels/gemm/cuda/gemm_cuda_backend.hpp"

#include <set>

#include "kernels/gemm/cuda/gemm_cuda_context.hpp"
#include "kernels/gemm/cuda/gemm_tiled_launch.hpp"
#include "ktune/cuda.hpp"
#include "src/cuda/cuda_device.hpp"
#include "src/cuda/cuda_error.hpp"

namespace ktune::kernels::gemm::cuda {
namespace {

using ktune::cuda::check_cublas;

class CudaGemmBackend final : public Backend {
 public:
  CudaGemmBackend(const Family& family, int device_index, const BackendOptions& options)
      : context_(family.space(), device_index, options.kernel_source, options.data_seed) {}

  const DeviceInfo& device() const override { return context_.info; }

  bool implements(const Config& config) const override {
    return runs_on_cuda(gemm_config_of(context_.space, config).kind);
  }

  // Compiles every instantiation the configs need: seed tiles (transposes are run-time
  // arguments there) and tiled kernels for all four transposes.
  void prepare(const std::vector<Config>& configs) override {
    ktune::cuda::use_device(context_.device_index);
    std::vector<Tile> tiles;
    std::set<int> seen;
    std::vector<TiledKernels::Instance> blocked;
    std::set<std::string> seen_blocked;
    for (const Config& config : configs) {
      const GemmConfig g = gemm_config_of(context_.space, config);
      if (g.kind == Kind::seed) {
        const Tile tile = tile_of(context_.space, config);
        if (seen.insert(tile.r * 100 + tile.a * 10 + tile.c).second) tiles.push_back(tile);
      } else if (runs_on_cuda(g.kind)) {
        for (bool ta : {false, true})
          for (bool tb : {false, true})
            if (seen_blocked.insert(tiled_name_expression(g.blocked, ta, tb)).second)
              blocked.push_back({g.blocked, ta, tb});
      }
    }
    context_.kernels.prepare(tiles);
    context_.tiled.prepare(blocked);
  }

  std::unique_ptr<ProblemSession> open(const Problem& problem) override {
    ktune::cuda::use_device(context_.device_index);
    return open_session(context_, problem);
  }

 private:
  DeviceContext context_;
};

// Makes the device current before any member that allocates on it is constructed.
int select_device(int device_index) {
  ktune::cuda::require_device(device_index);
  ktune::cuda::use_device(device_index);
  return device_index;
}

}  // namespace

CublasHandle::CublasHandle(cudaStream_t stream) {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  try {
    check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
    // FP32 baseline: DEFAULT math never lowers precision below the requested FP32 (TF32 needs
    // CUBLAS_TF32_TENSOR_OP_MATH, BF16x9 emulation CUBLAS_FP32_EMULATED_BF16X9_MATH). The
    // float64 reference switches to PEDANTIC for its one call.
    check_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode(DEFAULT)");
  } catch (...) {
    cublasDestroy(handle_);
    throw;
  }
}

CublasHandle::~CublasHandle() {
  if (handle_ && !ktune::cuda::context_corrupted()) cublasDestroy(handle_);
}

DeviceContext::DeviceContext(const Space& space_, int device_index_,
                             const std::string& kernel_source, uint64_t data_seed_)
    : space(space_),
      device_index(select_device(device_index_)),
      info(query_cuda_device(device_index)),
      arch(ktune::cuda::device_arch(device_index)),
      l2_bytes(ktune::cuda::device_attribute(device_index, cudaDevAttrL2CacheSize, "l2_bytes")),
      data_seed(data_seed_),
      cublas(stream.get()),
      kernels(arch, kernel_source),
      tiled(arch),
      rel_error(arch) {}

std::unique_ptr<Backend> make_backend(const Family& family, int device_index,
                                      BackendOptions options) {
  if (family.name() != "gemm") {
    throw Error("gemm cuda backend: cannot run family '" + family.name() + "'");
  }
  return std::make_unique<CudaGemmBackend>(family, device_index, options);
}

void register_backend() {
  ktune::register_backend("gemm", "cuda", [](const Family& family, int device_index) {
    return make_backend(family, device_index);
  });
}

}  // namespace ktune::kernels::gemm::cuda

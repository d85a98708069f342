#include "kernels/gemm/cuda/gemm_cuda_backend.hpp"

#include <set>

#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/gemm/cuda/gemm_cuda_context.hpp"
#include "kernels/gemm/cuda/gemm_warp_launch.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/cuda_error.hpp"

namespace ktune::kernels::gemm::cuda {
namespace {

using ktune::cuda::check_cublas;

class CudaGemmBackend final : public Backend {
 public:
  CudaGemmBackend(const Family& family, int device_index, const BackendOptions& options)
      : context_(family.space(), device_index, options.kernel_source, options.data_seed) {}

  const DeviceInfo& device() const override { return context_.device.info(); }

  bool implements(const Config& config) const override {
    return runs_on_cuda(gemm_config_of(context_.space, config).kind);
  }

  // Compiles the seed tiles the configs need (transposes are run-time arguments there) and
  // records the round's tiled, split-K and warp configs: a session compiles those for its own
  // transposes when its first one runs (a workload uses few of the four pairs: dnn three).
  void prepare(const std::vector<Config>& configs) override {
    context_.device.make_current();
    context_.mma_configs.clear();
    context_.wgmma_configs.clear();
    context_.blocked_configs.clear();
    std::vector<Tile> tiles;
    std::set<int> seen;
    std::set<std::string> seen_blocked;
    for (const Config& config : configs) {
      const GemmConfig g = gemm_config_of(context_.space, config);
      if (g.kind == Kind::seed) {
        const Tile tile = tile_of(context_.space, config);
        if (seen.insert(tile.r * 100 + tile.a * 10 + tile.c).second) tiles.push_back(tile);
      } else if (runs_mma_kernel(g.kind)) {
        // Instantiated per precision too: compiled when a problem of that precision opens
        // (mma and mmasplit configs of one tile share an instantiation: splits is an argument).
        context_.mma_configs.push_back(g.blocked);
      } else if (runs_wgmma_kernel(g.kind)) {
        context_.wgmma_configs.push_back(g.blocked);
      } else if (runs_on_cuda(g.kind)) {
        // Split-K shares its tiled or warp instantiation (splits is an argument).
        if (seen_blocked.insert(blocked_name_expression(g.blocked, false, false)).second)
          context_.blocked_configs.push_back(g.blocked);
      }
    }
    context_.kernels.prepare(tiles);
  }

  std::unique_ptr<ProblemSession> open(const Problem& problem) override {
    context_.device.make_current();
    return open_session(context_, problem);
  }

 private:
  GemmContext context_;
};

}  // namespace

GemmContext::GemmContext(const Space& space_, int device_index, const std::string& kernel_source,
                         uint64_t data_seed_)
    : space(space_),
      device(device_index),
      data_seed(data_seed_),
      cublas(device.stream()),
      cublaslt(),
      kernels(device.arch(), kernel_source),
      tiled(device.arch()),
      rel_error(device.arch()),
      mma(device.arch(), ktune::embedded_file("gemm_mma.cuh"), "gemm_mma.cu"),
      // wgmma and setmaxnreg exist only in the arch-specific target; on other devices the kind
      // is refused before anything compiles.
      wgmma(device.arch() == "sm_90" ? "sm_90a" : device.arch(),
            ktune::embedded_file("gemm_wgmma.cuh"), "gemm_wgmma.cu") {}

std::unique_ptr<Backend> make_backend(const Family& family, int device_index,
                                      BackendOptions options) {
  if (family.name() != "gemm") {
    throw Error("gemm cuda backend: cannot run family '" + family.name() + "'");
  }
  return std::make_unique<CudaGemmBackend>(family, device_index, options);
}

}  // namespace ktune::kernels::gemm::cuda

// The GEMM family's CUDA registration entry (called by register_cuda_backends).
KTUNE_FAMILY_CUDA_ENTRY(gemm) {
  ktune::register_backend("gemm", "cuda", [](const ktune::Family& family, int device_index) {
    return ktune::kernels::gemm::cuda::make_backend(family, device_index);
  });
}

#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"

#include <fmt/format.h>

#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/gemm/cuda/gemm_seed_launch.hpp"
#include "kernels/gemm/cuda/gemm_warp_launch.hpp"
#include "ktune/cuda/cuda_error.hpp"

namespace ktune::kernels::gemm::cuda {
namespace {

bool valid_tile(const Tile& t) {
  auto ok = [](int v) { return v == 1 || v == 2 || v == 4 || v == 8; };
  return ok(t.r) && ok(t.a) && ok(t.c);
}

std::string tile_name(const Tile& t) { return fmt::format("r={};a={};c={}", t.r, t.a, t.c); }

}  // namespace

std::string seed_name_expression(const Tile& tile) {
  return fmt::format("ktune_gemm_seed<{},{},{}>", tile.r, tile.a, tile.c);
}

SeedKernels::SeedKernels(std::string arch, std::string source)
    : cache_(std::move(arch), source.empty() ? ktune::embedded_file("gemm_seed.cuh") : std::move(source),
             "gemm_seed.cu") {}

void SeedKernels::prepare(const std::vector<Tile>& tiles, unsigned threads) {
  std::vector<std::string> names;
  for (const Tile& t : tiles) {
    if (!valid_tile(t)) throw Error("gemm cuda: tile " + tile_name(t) + " is not in {1,2,4,8}^3");
    names.push_back(seed_name_expression(t));
  }
  cache_.prepare(names, threads);
}

const LoadedKernel& SeedKernels::get(const Tile& tile) {
  if (!valid_tile(tile))
    throw Error("gemm cuda: tile " + tile_name(tile) + " is not in {1,2,4,8}^3");
  return cache_.get(seed_name_expression(tile));
}

TiledKernels::TiledKernels(std::string arch)
    : cache_(arch, ktune::embedded_file("gemm_tiled.cuh"), "gemm_tiled.cu"),
      warp_cache_(arch, ktune::embedded_file("gemm_warp.cuh"), "gemm_warp.cu") {
  int device = 0;
  ktune::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  ktune::cuda::check(
      cudaDeviceGetAttribute(&max_shared_bytes_, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
      "cudaDeviceGetAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)");
}

void TiledKernels::prepare(const std::vector<Instance>& instances, unsigned threads) {
  std::vector<std::string> names = {kSplitkReduceName}, warp_names;
  for (const Instance& i : instances)
    (i.params.wm > 0 ? warp_names : names)
        .push_back(blocked_name_expression(i.params, i.transa, i.transb));
  cache_.prepare(names, threads);
  if (!warp_names.empty()) warp_cache_.prepare(warp_names, threads);
}

const LoadedKernel& TiledKernels::get(const Instance& i) {
  return (i.params.wm > 0 ? warp_cache_ : cache_)
      .get(blocked_name_expression(i.params, i.transa, i.transb));
}

const LoadedKernel& TiledKernels::reduce() { return cache_.get(kSplitkReduceName); }

LaunchResult launch_blocked(TiledKernels& kernels, const BlockedParams& params, const Shape& shape,
                            float alpha, const float* a, const float* b, float beta, float* c,
                            float* workspace, cudaStream_t stream) {
  const LoadedKernel& kernel = kernels.get({params, shape.transa, shape.transb});
  const LoadedKernel* reduce = params.splits > 1 ? &kernels.reduce() : nullptr;
  const TiledLaunch launch =
      params.wm > 0
          ? launch_warp(kernel.function(), kernel.attributes().maxThreadsPerBlock,
                        kernels.max_shared_bytes(), reduce ? reduce->function() : nullptr, params,
                        shape.transa, shape.transb, shape.m, shape.n, shape.k, shape.batch, alpha,
                        a, shape.lda, shape.stride_a(), b, shape.ldb, shape.stride_b(), beta, c,
                        shape.ldc, shape.stride_c(), workspace, stream)
          : launch_tiled(kernel.function(), kernel.attributes().maxThreadsPerBlock,
                         reduce ? reduce->function() : nullptr, params, shape.transa, shape.transb,
                         shape.m, shape.n, shape.k, shape.batch, alpha, a, shape.lda,
                         shape.stride_a(), b, shape.ldb, shape.stride_b(), beta, c, shape.ldc,
                         shape.stride_c(), workspace, stream);
  if (launch.refused) return {Status::refused, launch.message};
  if (launch.error == cudaSuccess) return {};
  return {Status::failed, ktune::cuda::describe_failure(launch.error, launch.message)};
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
  const SeedGeometry geometry =
      seed_geometry({tile.r, tile.a, tile.c, tile.wg_x, tile.wg_y}, shape.m, shape.n, shape.batch);
  if (geometry.refusal) return {Status::refused, fmt::format("{}: {}", what, geometry.refusal)};
  const dim3 grid = geometry.grid, block = geometry.block;
  cudaError_t error =
      launch_seed_kernel(kernel.function(), geometry, shape.transa, shape.transb, shape.m, shape.n,
                         shape.k, alpha, a, shape.lda, shape.stride_a(), b, shape.ldb,
                         shape.stride_b(), beta, c, shape.ldc, shape.stride_c(), stream);
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

}  // namespace ktune::kernels::gemm::cuda

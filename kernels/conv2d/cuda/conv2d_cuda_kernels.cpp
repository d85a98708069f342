#include "kernels/conv2d/cuda/conv2d_cuda_kernels.hpp"

#include <fmt/format.h>

#include <map>

#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"
#include "ktune/family.hpp"  // embedded_file

namespace ktune::kernels::conv2d::cuda {

namespace {

std::string gemm_name(const CudaConvConfig& g, bool transa, bool transb) {
  gemm::BlockedParams b;
  b.bm = g.bm, b.bn = g.bn, b.bk = g.bk, b.tm = g.tm, b.tn = g.tn, b.vec = 4, b.db = 1;
  return gemm::cuda::tiled_name_expression(b, transa, transb);
}

std::string im2col_name(bool c4) { return fmt::format("ktune_conv2d_im2col<{}>", c4 ? 4 : 1); }

std::string wino_name(const char* stage, const CudaConvConfig& g) {
  return fmt::format("ktune_conv2d_wino_{}<{},{}>", stage, g.m, g.tv);
}

}  // namespace

std::string igemm_mma_name(const CudaConvConfig& g, gemm::Precision precision, int vec) {
  return fmt::format("ktune_conv2d_igemm_mma<{},{},{},{},{},{},{},{}>", g.bm, g.bn, g.bk, g.wm,
                     g.wn, g.st, int(precision), vec);
}

namespace {
// The precisions each tensor-core kind has kernels for.
constexpr gemm::Precision kTensorCorePrecisions[] = {gemm::Precision::tf32, gemm::Precision::bf16,
                                                     gemm::Precision::fp16};

}  // namespace

std::vector<KernelName> kernel_names(const CudaConvConfig& g) {
  switch (g.kind) {
    case CudaKind::direct:
      return {{"conv2d_direct.cuh", fmt::format("ktune_conv2d_direct<{},{},{},{},{},{}>", g.tp,
                                                g.tq, g.vk, g.vc, g.smem, g.wg)}};
    case CudaKind::im2col:
      return {{"conv2d_im2col.cuh", im2col_name(false)},
              {"conv2d_im2col.cuh", im2col_name(true)},
              {"gemm_tiled.cuh", gemm_name(g, true, false)}};
    case CudaKind::gemm1x1:
      return {{"gemm_tiled.cuh", gemm_name(g, true, false)}};
    case CudaKind::winograd:
      return {{"conv2d_winograd.cuh", wino_name("filter", g)},
              {"conv2d_winograd.cuh", wino_name("input", g)},
              {"conv2d_winograd.cuh", wino_name("output", g)},
              {"gemm_tiled.cuh", gemm_name(g, false, false)}};
    case CudaKind::igemm_mma: {
      std::vector<KernelName> names;
      for (gemm::Precision p : kTensorCorePrecisions)
        for (int vec : {8, 1}) names.push_back({"conv2d_igemm_mma.cuh", igemm_mma_name(g, p, vec)});
      return names;
    }
    case CudaKind::igemm_wgmma: {
      std::vector<KernelName> names;
      for (gemm::Precision p : kTensorCorePrecisions)
        names.push_back({"conv2d_wgmma.cuh", igemm_wgmma_name(g, p)});
      return names;
    }
  }
  return {};
}

ConvKernelSet::ConvKernelSet(std::string arch)
    : hopper_(arch == "sm_90"),
      direct_(arch, ktune::embedded_file("conv2d_direct.cuh"), "conv2d_direct.cu"),
      im2col_(arch, ktune::embedded_file("conv2d_im2col.cuh"), "conv2d_im2col.cu"),
      winograd_(arch, ktune::embedded_file("conv2d_winograd.cuh"), "conv2d_winograd.cu"),
      tiled_(arch, ktune::embedded_file("gemm_tiled.cuh"), "gemm_tiled.cu"),
      igemm_mma_(arch, ktune::embedded_file("conv2d_igemm_mma.cuh"), "conv2d_igemm_mma.cu"),
      wgmma_(arch == "sm_90" ? "sm_90a" : arch, ktune::embedded_file("conv2d_wgmma.cuh"),
             "conv2d_wgmma.cu") {}

gemm::cuda::KernelCache& ConvKernelSet::cache(const std::string& file) {
  if (file == "conv2d_direct.cuh") return direct_;
  if (file == "conv2d_im2col.cuh") return im2col_;
  if (file == "conv2d_winograd.cuh") return winograd_;
  if (file == "conv2d_igemm_mma.cuh") return igemm_mma_;
  if (file == "conv2d_wgmma.cuh") return wgmma_;
  return tiled_;
}

void ConvKernelSet::prepare(const std::vector<CudaConvConfig>& configs, unsigned threads) {
  std::map<std::string, std::vector<std::string>> by_file;
  by_file["conv2d_im2col.cuh"].push_back(kReferenceName);
  for (const CudaConvConfig& g : configs) {
    if (g.kind == CudaKind::igemm_wgmma && !hopper_) continue;  // refused at run time
    for (const KernelName& name : kernel_names(g)) by_file[name.file].push_back(name.expression);
  }
  // One file after the other, each compiled in parallel (the caches dedupe names).
  for (const auto& [file, names] : by_file) cache(file).prepare(names, threads);
}

const ktune::cuda::LoadedKernel& ConvKernelSet::get(const KernelName& name) {
  return cache(name.file).get(name.expression);
}

const ktune::cuda::LoadedKernel& ConvKernelSet::reference() { return im2col_.get(kReferenceName); }

const ktune::cuda::LoadedKernel& ConvKernelSet::widen16() { return im2col_.get(kWiden16Name); }

const ktune::cuda::LoadedKernel& ConvKernelSet::igemm_mma(const CudaConvConfig& g,
                                                          gemm::Precision precision, bool vec8) {
  return igemm_mma_.get(igemm_mma_name(g, precision, vec8 ? 8 : 1));
}

const ktune::cuda::LoadedKernel& ConvKernelSet::igemm_wgmma(const CudaConvConfig& g,
                                                            gemm::Precision precision) {
  return wgmma_.get(igemm_wgmma_name(g, precision));
}

ConvKernels ConvKernelSet::kernels(const CudaConvConfig& g, bool c4) {
  ConvKernels k;
  auto set_gemm = [&](bool transa, bool transb) {
    const auto& kernel = get({"gemm_tiled.cuh", gemm_name(g, transa, transb)});
    k.gemm = kernel.function();
    k.gemm_max_threads = kernel.attributes().maxThreadsPerBlock;
  };
  switch (g.kind) {
    case CudaKind::direct: {
      const auto& kernel = get(kernel_names(g).front());
      k.main = kernel.function();
      k.main_max_threads = kernel.attributes().maxThreadsPerBlock;
      break;
    }
    case CudaKind::im2col: {
      const auto& kernel = get({"conv2d_im2col.cuh", im2col_name(c4)});
      k.main = kernel.function();
      k.main_max_threads = kernel.attributes().maxThreadsPerBlock;
      set_gemm(true, false);
      break;
    }
    case CudaKind::gemm1x1:
      set_gemm(true, false);
      break;
    case CudaKind::winograd:
      k.filter = get({"conv2d_winograd.cuh", wino_name("filter", g)}).function();
      k.input = get({"conv2d_winograd.cuh", wino_name("input", g)}).function();
      k.output = get({"conv2d_winograd.cuh", wino_name("output", g)}).function();
      set_gemm(false, false);
      break;
    case CudaKind::igemm_mma:    // one kernel per precision and loader: igemm_mma()
    case CudaKind::igemm_wgmma:  // one kernel per precision: igemm_wgmma()
      break;
  }
  return k;
}

}  // namespace ktune::kernels::conv2d::cuda

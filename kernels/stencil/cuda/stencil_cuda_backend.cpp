#include "kernels/stencil/cuda/stencil_cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kernels/stencil/stencil_programs.hpp"
#include "kernels/stencil/stencil_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/cuda/device_measure.hpp"
#include "ktune/cuda/loaded_kernel.hpp"
#include "ktune/timing.hpp"

namespace ktune::stencil::cuda {

using ktune::cuda::check;
using ktune::cuda::CudaError;
using ktune::cuda::DeviceBuffer;
using ktune::cuda::LoadedKernel;

ktune::cuda::NvrtcRequest nvrtc_request(const Scenario& s, const std::string& arch) {
  return {cuda_source(s),
          fmt::format("stencil_{}.cu", program_name(s.program)),
          kCudaEntry,
          arch,
          {"--std=c++17", "--fmad=false"}};
}

size_t shared_bytes(const Scenario& s, const WorkGroup& wg) {
  return size_t(wg.rows + s.north + s.south) * size_t(wg.cols + s.west + s.east) *
         elem_bytes(s.type);
}

namespace {

constexpr size_t kDefaultSharedLimit = 48 * 1024;  // beyond this a kernel must opt in
constexpr size_t kAlign = 256;
size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

using ktune::cuda::RunAbort;

// The device (stream, events, arch, L2) plus the stencil backend's kernels.
struct Context {
  explicit Context(int index)
      : device(index),
        shared_optin(size_t(ktune::cuda::device_attribute(
            index, cudaDevAttrMaxSharedMemoryPerBlockOptin, "shared_mem_per_block_optin"))) {}

  // A loaded kernel per program text, or why there is none. Compiled on first use.
  struct Entry {
    std::unique_ptr<LoadedKernel> kernel;
    std::string error;
  };
  const Entry& kernel_for(const Scenario& s) {
    const ktune::cuda::NvrtcRequest request = nvrtc_request(s, device.arch());
    auto [it, fresh] = kernels.try_emplace(request.source);
    if (fresh) {
      try {
        it->second.kernel = std::make_unique<LoadedKernel>(ktune::cuda::compile_cubin(request),
                                                           request.program_name);
      } catch (const CudaError& e) {
        if (e.sticky()) throw;
        it->second.error = e.what();
      } catch (const Error& e) {  // CompileError
        it->second.error = e.what();
      }
    }
    return it->second;
  }

  ktune::cuda::DeviceContext device;
  size_t shared_optin;
  std::map<std::string, Entry> kernels;
};

class Session final : public ProblemSession {
 public:
  Session(Context& context, const Family& family, const Problem& problem)
      : context_(context),
        family_(family),
        scenario_(scenario_of(problem)),
        key_(problem.key()),
        entry_(context.kernel_for(scenario_)) {
    const HostMatrix input = random_input(scenario_, seed_of(key_));
    reference_ = reference_stencil(scenario_, input);
    bytes_ = input.bytes.size();
    copy_bytes_ = 2 * align_up(bytes_);
    copies_ = ktune::cuda::rotation_copies(context_.device, double(copy_bytes_));
    pool_ = DeviceBuffer<char>(size_t(copies_) * copy_bytes_, "stencil data for " + key_);
    cudaStream_t stream = context_.device.stream();
    check(cudaMemcpyAsync(in(0), input.bytes.data(), bytes_, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(stencil input)");
    for (int c = 1; c < copies_; ++c)
      check(cudaMemcpyAsync(in(c), in(0), bytes_, cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync(input copies)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(stencil upload)");
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    context_.device.make_current();
    const WorkGroup wg = work_group_of(family_.space(), config);
    const std::string what =
        fmt::format("stencil {} wg={}x{}", program_name(scenario_.program), wg.rows, wg.cols);
    if (!entry_.kernel) return outcome(Status::failed, what + ": " + entry_.error);
    const LoadedKernel& kernel = *entry_.kernel;
    const cudaFuncAttributes& attr = kernel.attributes();
    if (wg.size() > attr.maxThreadsPerBlock)
      return outcome(Status::refused,
                     fmt::format("{}: {} threads per block exceed this kernel's limit of {} ({} "
                                 "registers per thread)",
                                 what, wg.size(), attr.maxThreadsPerBlock, attr.numRegs));
    const size_t shared = shared_bytes(scenario_, wg);
    if (shared > context_.shared_optin)
      return outcome(Status::refused,
                     fmt::format("{}: the staged tile needs {} bytes of shared memory, over the "
                                 "device's {} per block",
                                 what, shared, context_.shared_optin));
    if (shared > kDefaultSharedLimit) {
      const cudaError_t error = cudaFuncSetAttribute(
          kernel.function(), cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
      if (error != cudaSuccess)
        return outcome(Status::refused,
                       ktune::cuda::describe_failure(
                           error, fmt::format("cudaFuncSetAttribute({}, {} bytes of shared memory)",
                                              what, shared)));
    }
    const int64_t blocks_r = (scenario_.rows + wg.rows - 1) / wg.rows;
    const int64_t blocks_c = (scenario_.cols + wg.cols - 1) / wg.cols;
    if (blocks_r > 65535)
      return outcome(Status::refused,
                     fmt::format("{}: {} row blocks exceed the grid limit 65535", what, blocks_r));
    const dim3 grid{unsigned(blocks_c), unsigned(blocks_r), 1u};
    const dim3 block{unsigned(wg.cols), unsigned(wg.rows), 1u};
    auto launch = [&](int copy) {
      const void* in_ptr = in(copy);
      void* out_ptr = out(copy);
      int rows = int(scenario_.rows), cols = int(scenario_.cols);
      int clamp = scenario_.boundary == Boundary::clamp ? 1 : 0;
      void* args[] = {&in_ptr, &out_ptr, &rows, &cols, &clamp};
      cudaError_t error =
          cudaLaunchKernel(kernel.function(), grid, block, args, shared, context_.device.stream());
      if (error == cudaSuccess) error = cudaGetLastError();
      if (error == cudaSuccess) return;
      const std::string call = fmt::format("cudaLaunchKernel({}, grid {}x{}, {} bytes shared)",
                                           what, grid.x, grid.y, shared);
      if (error == cudaErrorLaunchOutOfResources || error == cudaErrorInvalidConfiguration) {
        (void)cudaGetLastError();
        throw RunAbort{Status::refused, call + ": " + ktune::cuda::error_text(error)};
      }
      throw RunAbort{Status::failed, ktune::cuda::describe_failure(error, call)};
    };
    return measure(launch, policy, what);
  }

  std::vector<std::string> vendors() const override { return {}; }
  Outcome run_vendor(const std::string& vendor, const TimingPolicy&) override {
    throw Error(fmt::format("vendor '{}' is not available for stencils on cuda", vendor));
  }

 private:
  char* in(int copy) const { return pool_.data() + size_t(copy) * copy_bytes_; }
  char* out(int copy) const { return in(copy) + copy_bytes_ / 2; }

  static Outcome outcome(Status status, std::string message) {
    Outcome o;
    o.status = status;
    o.message = std::move(message);
    return o;
  }

  template <typename Launch>
  Outcome measure(Launch& launch, const TimingPolicy& policy, const std::string& what) {
    ktune::cuda::DeviceRun run;
    // Poisoned output: NaN bytes for float/double, 0x80808080 for int.
    run.poison = [&] {
      const int fill = scenario_.type == ElemType::i32 ? 0x80 : 0xFF;
      check(cudaMemsetAsync(out(0), fill, bytes_, context_.device.stream()),
            "cudaMemsetAsync(poison)");
    };
    run.launch = [&](int copy) { launch(copy); };
    run.verify = [&] {
      HostMatrix host(scenario_.type, scenario_.rows, scenario_.cols);
      check(cudaMemcpy(host.bytes.data(), out(0), bytes_, cudaMemcpyDeviceToHost),
            "cudaMemcpy(stencil output)");
      const Verdict verdict = verify(scenario_, host, reference_);
      return RunVerdict{verdict.ok, verdict.rel_error, verdict.message};
    };
    run.copies = copies_;
    return ktune::cuda::verify_then_time_on_device(context_.device, run, policy, what);
  }

  Context& context_;
  const Family& family_;
  Scenario scenario_;
  std::string key_;
  const Context::Entry& entry_;
  HostMatrix reference_;
  size_t bytes_ = 0, copy_bytes_ = 0;
  int copies_ = 1;
  DeviceBuffer<char> pool_;
};

class Backend final : public ktune::Backend {
 public:
  Backend(const Family& family, int device_index) : family_(family), context_(device_index) {}
  const DeviceInfo& device() const override { return context_.device.info(); }
  std::unique_ptr<ProblemSession> open(const Problem& problem) override {
    context_.device.make_current();
    return std::make_unique<Session>(context_, family_, problem);
  }

 private:
  const Family& family_;
  Context context_;
};

}  // namespace

std::unique_ptr<ktune::Backend> make_backend(const Family& family, int device_index) {
  if (family.name() != "stencil")
    throw Error("stencil cuda backend: cannot run family '" + family.name() + "'");
  return std::make_unique<Backend>(family, device_index);
}

}  // namespace ktune::stencil::cuda

// The stencil family's CUDA registration entry (called by register_cuda_backends).
KTUNE_FAMILY_CUDA_ENTRY(stencil) {
  ktune::register_backend("stencil", "cuda", [](const ktune::Family& family, int device_index) {
    return ktune::stencil::cuda::make_backend(family, device_index);
  });
}

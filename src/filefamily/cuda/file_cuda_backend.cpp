// CUDA sessions of file families (file_cuda_backend.hpp).
#include "src/filefamily/cuda/file_cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/cuda/device_context.hpp"
#include "ktune/cuda/device_measure.hpp"
#include "ktune/cuda/loaded_kernel.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "src/filefamily/file_family.hpp"
#include "src/filefamily/launch.hpp"
#include "src/filefamily/problem_data.hpp"

namespace ktune::filefamily {

namespace fs = std::filesystem;

cuda::NvrtcRequest nvrtc_request(const FileFamily& family, const Config& config,
                                 const std::string& arch) {
  const FileSpec& s = family.spec();
  const fs::path file = fs::path(s.dir) / s.kernel_file;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot read the file", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  cuda::NvrtcRequest r;
  r.source = text.str();
  r.program_name = s.kernel_file;
  r.arch = arch;
  r.options = {"--std=c++17", "-I" + fs::absolute(file.parent_path()).string()};
  r.options.insert(r.options.end(), s.compiler_options.begin(), s.compiler_options.end());
  std::vector<std::string> values;
  for (size_t i = 0; i < s.params.size(); ++i) {
    const std::string& value = s.params[i].values[size_t(config.index[i])];
    if (s.passing == Passing::defines) r.options.push_back("-D" + s.params[i].name + "=" + value);
    values.push_back(value);
  }
  r.name_expression = s.kernel_name;
  if (s.passing == Passing::template_args)
    r.name_expression += fmt::format("<{}>", fmt::join(values, ", "));
  return r;
}

namespace {

using cuda::check;
using cuda::CudaError;
using cuda::DeviceBuffer;
using cuda::LoadedKernel;
using cuda::RunAbort;

class Session;

class Backend final : public ktune::Backend {
 public:
  Backend(const FileFamily& family, int index) : family_(family), device_(index) {}
  const DeviceInfo& device() const override { return device_.info(); }
  std::unique_ptr<ProblemSession> open(const Problem& problem) override;

  // The config's kernel, or why there is none; compiled on first use.
  struct Entry {
    std::unique_ptr<LoadedKernel> kernel;
    std::string error;
  };
  const Entry& kernel(const Config& c) {
    auto [it, fresh] = kernels_.try_emplace(c.id);
    if (fresh) {
      try {
        const cuda::NvrtcRequest r = nvrtc_request(family_, c, device_.arch());
        it->second.kernel =
            std::make_unique<LoadedKernel>(cuda::compile_cubin(r), family_.space().to_string(c));
      } catch (const CudaError& e) {
        if (e.sticky()) throw;
        it->second.error = e.what();
      } catch (const Error& e) {  // CompileError: the config is failed, the sweep goes on
        it->second.error = e.what();
      }
    }
    return it->second;
  }

  const FileFamily& family_;
  cuda::DeviceContext device_;

 private:
  std::map<int64_t, Entry> kernels_;
};

class Session final : public ProblemSession {
 public:
  Session(Backend& backend, const Problem& problem)
      : backend_(backend), family_(backend.family_), problem_(problem), data_(family_, problem) {
    const size_t args = family_.spec().arguments.size();
    copies_ = cuda::rotation_copies(backend_.device_, data_.vector_bytes());
    buffers_.resize(size_t(copies_));
    for (int c = 0; c < copies_; ++c)
      for (size_t i = 0; i < args; ++i) {
        const bool vector = !family_.spec().arguments[i].scalar;
        buffers_[size_t(c)].emplace_back(vector ? data_.initial(i).bytes : 0,
                                         fmt::format("{} argument {}", family_.name(), i));
        if (vector) upload(c, i);
      }
    check(cudaStreamSynchronize(backend_.device_.stream()), "cudaStreamSynchronize(upload)");
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    backend_.device_.make_current();
    const std::string what =
        fmt::format("{} {}", family_.name(), family_.space().to_string(config));
    const Backend::Entry& entry = backend_.kernel(config);
    if (!entry.kernel) return failed_outcome(what + ": " + entry.error);
    const std::vector<double> sizes = family_.launch_sizes(problem_, config);
    if (auto why = launch_refusal(sizes)) return refused_outcome(what + ": " + *why);
    dim3 grid{unsigned(sizes[0]), unsigned(sizes[1]), unsigned(sizes[2])};
    const dim3 block{unsigned(sizes[3]), unsigned(sizes[4]), unsigned(sizes[5])};
    if (family_.spec().global_in_threads) {  // OpenCL's convention: the global size in threads
      for (int d = 0; d < 3; ++d) {
        if (std::fmod(sizes[size_t(d)], sizes[size_t(d) + 3]) != 0)
          return refused_outcome(
              fmt::format("{}: GlobalSize.{} = {} is not a multiple of "
                          "LocalSize.{} = {}",
                          what, "XYZ"[d], sizes[size_t(d)], "XYZ"[d], sizes[size_t(d) + 3]));
      }
      grid = {grid.x / block.x, grid.y / block.y, grid.z / block.z};
    }
    cuda::DeviceRun run;
    run.copies = copies_;
    run.poison = [&] { reset_copy0(); };
    run.launch = [&](int copy) { launch(*entry.kernel, grid, block, copy, what); };
    run.verify = [&] { return verify(); };
    return cuda::verify_then_time_on_device(backend_.device_, run, policy, what);
  }

  std::vector<std::string> vendors() const override { return {}; }
  Outcome run_vendor(const std::string& vendor, const TimingPolicy&) override {
    throw Error(fmt::format("family {} has no vendor baseline '{}'", family_.name(), vendor));
  }

 private:
  void upload(int copy, size_t arg) {
    check(cudaMemcpyAsync(buffers_[size_t(copy)][arg].data(), data_.initial(arg).data.get(),
                          data_.initial(arg).bytes, cudaMemcpyHostToDevice,
                          backend_.device_.stream()),
          "cudaMemcpyAsync(argument upload)");
  }

  // Copy 0 as before any run: read-write arguments restored, write-only ones poisoned.
  void reset_copy0() {
    const auto& args = family_.spec().arguments;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].scalar || args[i].access == Access::read_only) continue;
      if (args[i].access == Access::read_write) {
        upload(0, i);
        continue;
      }
      const bool floating = args[i].type == ElementType::f32 || args[i].type == ElementType::f64;
      check(cudaMemsetAsync(buffers_[0][i].data(), floating ? 0xFF : 0xA5, data_.initial(i).bytes,
                            backend_.device_.stream()),
            "cudaMemsetAsync(poison)");
    }
  }

  void launch(const LoadedKernel& kernel, dim3 grid, dim3 block, int copy,
              const std::string& what) {
    const auto& args = family_.spec().arguments;
    std::vector<void*> pointers(args.size());
    std::vector<void*> values(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].scalar) {
        values[i] = data_.initial(i).data.get();  // the scalar's bytes
      } else {
        pointers[i] = buffers_[size_t(copy)][i].data();
        values[i] = &pointers[i];
      }
    }
    cudaError_t error = cudaLaunchKernel(kernel.function(), grid, block, values.data(), 0,
                                         backend_.device_.stream());
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error == cudaSuccess) return;
    const std::string call = fmt::format("cudaLaunchKernel({}, grid {}x{}x{}, block {}x{}x{})",
                                         what, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    if (error == cudaErrorLaunchOutOfResources || error == cudaErrorInvalidConfiguration ||
        error == cudaErrorInvalidValue) {
      (void)cudaGetLastError();
      throw RunAbort{Status::refused, call + ": " + cuda::error_text(error)};
    }
    throw RunAbort{Status::failed, cuda::describe_failure(error, call)};
  }

  RunVerdict verify() {
    const auto& args = family_.spec().arguments;
    std::vector<Buffer> host;
    for (size_t i = 0; i < args.size(); ++i) {
      host.emplace_back(data_.output(i) ? data_.initial(i).bytes : 0);
      if (data_.output(i))
        check(cudaMemcpy(host.back().data.get(), buffers_[0][i].data(), data_.initial(i).bytes,
                         cudaMemcpyDeviceToHost),
              "cudaMemcpy(output)");
    }
    return data_.judge([&](size_t arg) -> const std::byte* { return host[arg].data.get(); });
  }

  Backend& backend_;
  const FileFamily& family_;
  Problem problem_;
  ProblemData data_;
  int copies_ = 1;
  std::vector<std::vector<DeviceBuffer<char>>> buffers_;
};

std::unique_ptr<ProblemSession> Backend::open(const Problem& problem) {
  device_.make_current();
  return std::make_unique<Session>(*this, problem);
}

}  // namespace

void register_cuda_file_backend(const std::string& family) {
  register_backend(family, "cuda",
                   [](const Family& f, int index) -> std::unique_ptr<ktune::Backend> {
                     return std::make_unique<Backend>(dynamic_cast<const FileFamily&>(f), index);
                   });
}

}  // namespace ktune::filefamily

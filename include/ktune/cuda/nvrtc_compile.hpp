#pragma once
// NVRTC compilation to CUBIN with a disk cache. The cache key is the full text of everything
// that determines the output (NVRTC version, target arch, options, name expression, source);
// a file is named by the key's hash and stores the key itself, so a hash collision or a stale
// file is detected and recompiled. Files are written atomically (temp file + rename), so
// concurrent processes sharing the cache never see a partial file.
#include <string>
#include <vector>

#include "ktune/error.hpp"

namespace ktune::cuda {

// A source may include files embedded in the binary by name (`#include "x.cuh"`,
// ktune::embedded_file, e.g. a family's cuda/*.cuh): they are handed to NVRTC as headers (it sees
// no file system) and are part of the cache key. nvcc finds the same files beside the source.
struct NvrtcRequest {
  std::string source;                // the whole program text
  std::string program_name;          // shown in compile logs, e.g. "kernel.cu"
  std::string name_expression;       // e.g. "ktune_kernel<4,2,8>"
  std::string arch;                  // exact device arch, e.g. "sm_90"
  std::vector<std::string> options;  // besides --gpu-architecture
};

struct CubinImage {
  std::string cubin;         // the CUBIN bytes
  std::string lowered_name;  // mangled name of name_expression inside the CUBIN
  bool from_cache = false;
};

// A program that NVRTC rejects; what() is the first line of the log, log() all of it.
class CompileError : public Error {
 public:
  CompileError(const std::string& first_line, std::string log)
      : Error(first_line), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// $KTUNE_CACHE_DIR/nvrtc when set, else $HOME/.cache/ktune/nvrtc (/tmp/ktune-cache/nvrtc
// without HOME). Created on first use; an unwritable cache only disables caching.
std::string nvrtc_cache_dir();

// Compiles (or reads from the cache) one instantiation. Thread-safe. Throws CompileError for
// programs NVRTC rejects and CudaError for NVRTC failures of any other kind.
CubinImage compile_cubin(const NvrtcRequest& request);

// The text that identifies a compilation (hashed for the file name, stored in the file).
std::string cache_key(const NvrtcRequest& request);

}  // namespace ktune::cuda

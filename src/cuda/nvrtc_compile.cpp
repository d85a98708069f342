#include "ktune/cuda/nvrtc_compile.hpp"

#include <fmt/format.h>
#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "ktune/cuda/cuda_error.hpp"
#include "ktune/family.hpp"

namespace ktune::cuda {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "KTUNE-NVRTC-CUBIN-1\n";

uint64_t fnv1a64(std::string_view text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char ch : text) {
    hash ^= ch;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string nvrtc_version_text() {
  int major = 0, minor = 0;
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return fmt::format("{}.{}", major, minor);
}

// File layout: magic, key size, key, lowered name, cubin size, cubin.
std::string serialize(const std::string& key, const CubinImage& image) {
  std::string out(kMagic);
  out += std::to_string(key.size()) + "\n" + key;
  out += image.lowered_name + "\n";
  out += std::to_string(image.cubin.size()) + "\n" + image.cubin;
  return out;
}

bool parse_size(std::istream& in, size_t& value) {
  std::string line;
  if (!std::getline(in, line) || line.empty() || line.size() > 19) return false;
  for (char ch : line)
    if (ch < '0' || ch > '9') return false;
  value = std::stoull(line);
  return true;
}

bool read_cached(const fs::path& path, const std::string& key, CubinImage& image) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string magic(kMagic.size(), '\0');
  if (!in.read(magic.data(), std::streamsize(magic.size())) || magic != kMagic) return false;
  size_t key_size = 0;
  if (!parse_size(in, key_size) || key_size != key.size()) return false;
  std::string stored_key(key_size, '\0');
  if (!in.read(stored_key.data(), std::streamsize(key_size)) || stored_key != key) return false;
  if (!std::getline(in, image.lowered_name) || image.lowered_name.empty()) return false;
  size_t cubin_size = 0;
  if (!parse_size(in, cubin_size) || cubin_size == 0) return false;
  image.cubin.assign(cubin_size, '\0');
  if (!in.read(image.cubin.data(), std::streamsize(cubin_size))) return false;
  image.from_cache = true;
  return true;
}

void write_cached(const fs::path& path, const std::string& key, const CubinImage& image) {
  static std::atomic<uint64_t> counter{0};
  const fs::path temp =
      path.string() + fmt::format(".tmp.{}.{}.{}", ::getpid(),
                                  std::hash<std::thread::id>{}(std::this_thread::get_id()),
                                  counter++);
  std::error_code ignored;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return;  // unwritable cache: compile every time
    const std::string bytes = serialize(key, image);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.close();
    if (!out) {
      fs::remove(temp, ignored);
      return;
    }
  }
  fs::rename(temp, path, ignored);  // atomic replace on POSIX
  if (ignored) fs::remove(temp, ignored);
}

// First line of the log that says "error", else its first non-empty line.
std::string first_error_line(const std::string& log) {
  std::istringstream lines(log);
  std::string line, first;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (first.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first.empty() ? std::string("NVRTC compilation failed with an empty log") : first;
}

// Owns an nvrtcProgram so that every exit path destroys it.
struct Program {
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle) nvrtcDestroyProgram(&handle);
  }
};

using Headers = std::vector<std::pair<std::string, std::string>>;  // name, text

// The embedded files `source` includes by name ("#include \"x.cuh\"", or a relative path ending
// in that name), and those they include, in first-seen order. A name that is not embedded is
// left to NVRTC (which then reports it).
Headers embedded_headers(const std::string& source) {
  Headers headers;
  auto scan = [&](const std::string& text) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      const size_t hash = line.find_first_not_of(" \t");
      if (hash == std::string::npos || line.compare(hash, 8, "#include") != 0) continue;
      const size_t open = line.find('"', hash);
      const size_t close = open == std::string::npos ? open : line.find('"', open + 1);
      if (close == std::string::npos) continue;
      const std::string name = line.substr(open + 1, close - open - 1);
      if (std::any_of(headers.begin(), headers.end(),
                      [&](const auto& h) { return h.first == name; }))
        continue;
      try {  // embedded by file name: "../../common/cuda/x.cuh" (the nvcc path) is "x.cuh"
        const size_t slash = name.rfind('/');
        headers.emplace_back(name, ktune::embedded_file(name.substr(slash + 1)));
      } catch (const Error&) {
      }
    }
  };
  scan(source);
  for (size_t i = 0; i < headers.size(); ++i) scan(std::string(headers[i].second));
  return headers;
}

CubinImage compile_uncached(const NvrtcRequest& request, const Headers& headers) {
  Program program;
  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  check_nvrtc(
      nvrtcCreateProgram(&program.handle, request.source.c_str(), request.program_name.c_str(),
                         int(headers.size()), header_texts.data(), header_names.data()),
      "nvrtcCreateProgram(" + request.program_name + ")");
  check_nvrtc(nvrtcAddNameExpression(program.handle, request.name_expression.c_str()),
              "nvrtcAddNameExpression(" + request.name_expression + ")");
  std::vector<std::string> options = {"--gpu-architecture=" + request.arch};
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> option_ptrs;
  for (const auto& option : options) option_ptrs.push_back(option.c_str());

  const nvrtcResult compiled =
      nvrtcCompileProgram(program.handle, int(option_ptrs.size()), option_ptrs.data());
  if (compiled != NVRTC_SUCCESS) {
    size_t log_size = 0;
    std::string log;
    if (nvrtcGetProgramLogSize(program.handle, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      log.assign(log_size, '\0');
      if (nvrtcGetProgramLog(program.handle, log.data()) != NVRTC_SUCCESS) log.clear();
      while (!log.empty() && log.back() == '\0') log.pop_back();
    }
    if (compiled == NVRTC_ERROR_COMPILATION || compiled == NVRTC_ERROR_INVALID_OPTION) {
      throw CompileError(fmt::format("NVRTC {} for {} ({}): {}", nvrtcGetErrorString(compiled),
                                     request.name_expression, request.arch, first_error_line(log)),
                         log);
    }
    check_nvrtc(compiled, "nvrtcCompileProgram(" + request.name_expression + ")");
  }

  CubinImage image;
  const char* lowered = nullptr;
  check_nvrtc(nvrtcGetLoweredName(program.handle, request.name_expression.c_str(), &lowered),
              "nvrtcGetLoweredName(" + request.name_expression + ")");
  image.lowered_name = lowered;  // owned by the program: copy before it is destroyed
  size_t cubin_size = 0;
  check_nvrtc(nvrtcGetCUBINSize(program.handle, &cubin_size), "nvrtcGetCUBINSize");
  if (cubin_size == 0) {
    throw CudaError(fmt::format("nvrtcGetCUBINSize: empty CUBIN for {} ({}); is '{}' a real "
                                "architecture (sm_XX)?",
                                request.name_expression, request.arch, request.arch),
                    0, false);
  }
  image.cubin.assign(cubin_size, '\0');
  check_nvrtc(nvrtcGetCUBIN(program.handle, image.cubin.data()), "nvrtcGetCUBIN");
  return image;
}

}  // namespace

std::string nvrtc_cache_dir() {
  if (const char* dir = std::getenv("KTUNE_CACHE_DIR"); dir && *dir) {
    return (fs::path(dir) / "nvrtc").string();
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return (fs::path(home) / ".cache" / "ktune" / "nvrtc").string();
  }
  return "/tmp/ktune-cache/nvrtc";
}

std::string cache_key(const NvrtcRequest& request) {
  std::string key = fmt::format("nvrtc {}\narch {}\nexpr {}\n", nvrtc_version_text(), request.arch,
                                request.name_expression);
  for (const auto& option : request.options) key += "option " + option + "\n";
  key += fmt::format("source {} {}\n", request.program_name, request.source.size());
  key += request.source;
  for (const auto& [name, text] : embedded_headers(request.source)) {
    key += fmt::format("\nheader {} {}\n", name, text.size());
    key += text;
  }
  return key;
}

CubinImage compile_cubin(const NvrtcRequest& request) {
  const std::string key = cache_key(request);
  const fs::path dir = nvrtc_cache_dir();
  const fs::path path = dir / fmt::format("{:016x}.cubin", fnv1a64(key));
  CubinImage image;
  if (read_cached(path, key, image)) return image;

  image = compile_uncached(request, embedded_headers(request.source));
  std::error_code ignored;
  fs::create_directories(dir, ignored);
  write_cached(path, key, image);
  return image;
}

}  // namespace ktune::cuda

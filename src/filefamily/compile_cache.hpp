#pragma once
// Host kernels of file families: a C++ translation unit compiled by the system compiler into a
// shared object, cached on disk under a key of everything that decides the binary (compiler,
// flags, the unit's text, the files it includes by name), and loaded with dlopen.
#include <memory>
#include <string>
#include <vector>

namespace ktune::filefamily {

struct CompileRequest {
  std::string compiler = "c++";
  std::vector<std::string> flags;         // after -O3 -std=c++20 -shared -fPIC
  std::string unit;                       // the translation unit's text
  std::vector<std::string> dependencies;  // files whose contents key the cache (the kernel)
};

// $KTUNE_CACHE_DIR/cpu-so, else ~/.cache/ktune/cpu-so.
std::string shared_object_cache_dir();

// The shared object's path, compiled now unless cached. Throws Error "compile failed: <first
// error line of the compiler>"; concurrent compiles of one key each rename a finished file in.
std::string compile_shared_object(const CompileRequest& request);

// A loaded shared object; closed with the last reference.
class SharedObject {
 public:
  explicit SharedObject(const std::string& path);  // throws Error with dlerror()
  ~SharedObject();
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;
  void* symbol(const std::string& name) const;  // throws Error when absent

 private:
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace ktune::filefamily

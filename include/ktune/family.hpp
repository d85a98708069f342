#pragma once
// A kernel family knows its space, its problem features and how to open a backend (a device)
// on which problems are verified and timed. Backends register per (family, backend kind), so
// the CUDA backend lives in its own library and the core builds without CUDA.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/device.hpp"
#include "ktune/measurement.hpp"
#include "ktune/problem.hpp"
#include "ktune/space.hpp"
#include "ktune/timing.hpp"

namespace ktune {

// One problem opened on one device: inputs, reference and output buffers live here, so each
// config run on the problem only launches, verifies and times.
class ProblemSession {
 public:
  virtual ~ProblemSession() = default;
  // Verify on poisoned output first; time only when the result is right.
  virtual Outcome run(const Config& config, const TimingPolicy& policy) = 0;
  // Vendor library baselines measured the same way ("cublas", "openblas").
  virtual std::vector<std::string> vendors() const = 0;
  virtual Outcome run_vendor(const std::string& vendor, const TimingPolicy& policy) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const DeviceInfo& device() const = 0;
  // Whether this backend has a kernel for the config's kind (a family's kinds may be specific to
  // one backend, like a CPU-only kernel); sweeps skip the others without recording them.
  virtual bool implements(const Config& config) const {
    (void)config;
    return true;
  }
  // What each vendor library of this backend runs here (vendor name → its build and kernel, e.g.
  // OpenBLAS's core): sweeps that measure vendor rows record it in the store (provenance.hpp).
  virtual std::map<std::string, std::string> vendor_descriptions() const { return {}; }
  // A chance to do per-config work once for the whole sweep (e.g. compile configs in parallel).
  virtual void prepare(const std::vector<Config>& configs) { (void)configs; }
  virtual std::unique_ptr<ProblemSession> open(const Problem& problem) = 0;
};

// How a generated selector (ktune codegen) computes the family's features from integer
// arguments: the family gives the C++ next to the values it computes, so the two cannot drift.
struct FeatureCode {
  enum class Holder {
    integer,         // a long long (raw arguments, modulo features): integer thresholds
    integer_double,  // a double that always holds an integer (products): floor'd thresholds
    real,            // a double: thresholds to 17 significant digits
  };
  std::string name;
  std::string declaration;        // one C++ statement declaring `name`; "" for raw arguments
  std::vector<std::string> uses;  // the arguments it reads
  Holder holder = Holder::real;
};

struct CodegenSignature {
  std::string doc;                // comment lines (without "// ") above the function
  std::vector<std::string> args;  // long long parameters: the family's problem features
  // Optional problem features (GEMM: precision) a model may have been trained with; those it has
  // become further long long parameters after args, in this order.
  std::vector<std::string> optional_args;
  std::vector<FeatureCode> derived;  // one per derived feature, in derived_feature_names order
  std::string guard;                 // when true, serve the baseline: features are not finite
  std::string guard_why;             // the comment after it
  std::vector<std::string> guard_uses;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;
  virtual const Space& space() const = 0;
  virtual std::vector<std::string> feature_names() const = 0;  // problem features, in order
  // Features the ML side derives from the problem features (GEMM: m*n, m mod 4, ...).
  virtual std::vector<std::string> derived_feature_names() const = 0;
  virtual std::vector<double> derived_features(const Problem& p) const = 0;
  virtual Problem make_problem(const std::vector<double>& feature_values) const;  // validates
  virtual double flops(const Problem& p) const = 0;   // work per run, for GFLOP/s
  virtual void validate(const Problem& p) const = 0;  // throws Error naming the problem

  // Built-in workloads ("dnn", "tiny", ...): names, and the problems of one (empty: unknown).
  virtual std::vector<std::string> builtin_workloads() const { return {}; }
  virtual Workload builtin_workload(const std::string& name) const;
  // A workload file's problems as variant `variant` ("FILE@bf16": GEMM's precisions), for
  // load_workload; the default family has none (throws Error naming the variant).
  virtual std::vector<Problem> workload_variant(std::vector<Problem> problems,
                                                const std::string& variant) const;
  // Other header names accepted for features in workload CSVs, e.g. {"M", "m"}.
  virtual std::vector<std::pair<std::string, std::string>> feature_aliases() const { return {}; }
  // A feature value as reports print it (GEMM prints transposes as true/false).
  virtual std::string feature_text(const std::string& name, double value) const;
  // Selectors over integer arguments for ktune codegen; nullopt: a struct of doubles.
  virtual std::optional<CodegenSignature> codegen_signature() const { return std::nullopt; }
};

using BackendFactory =
    std::function<std::unique_ptr<Backend>(const Family& family, int device_index)>;

void register_family(std::unique_ptr<Family> family);
const Family& find_family(const std::string& name);             // throws Error "unknown family 'x'"
const Family* find_registered_family(const std::string& name);  // nullptr when absent

void register_backend(const std::string& family, const std::string& backend_kind,
                      BackendFactory factory);
// device_spec: "cpu", "cuda:0". Throws Error for unknown or unavailable devices.
std::unique_ptr<Backend> open_backend(const Family& family, const std::string& device_spec);

// Registers the families of this build with their CPU backends and embedded files
// (idempotent). Defined by the generated family list (cmake/KtuneFamily.cmake), in the
// ktune_families library: programs that need the kernels link it, ktune_core does not.
void register_builtin();

// Files a family carries into the binary (NVRTC headers, workload CSVs), by file name.
void register_embedded_file(const std::string& name, const std::string& text);
const std::string& embedded_file(const std::string& name);  // throws Error when missing

}  // namespace ktune

// A family's one registration entry, in kernels/<family>/: registers the family, its CPU
// backend(s) and anything else it provides. The CUDA part (kernels/<family>/cuda/) has its own
// entry, KTUNE_FAMILY_CUDA_ENTRY, called by register_cuda_backends(). The generated family list
// calls them; nothing else names a family.
#define KTUNE_FAMILY_ENTRY(family) void ktune_family_entry_##family()
#define KTUNE_FAMILY_CUDA_ENTRY(family) void ktune_family_cuda_entry_##family()

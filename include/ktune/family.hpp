#pragma once
// A kernel family knows its space, its problem features and how to open a backend (a device)
// on which problems are verified and timed. Backends register per (family, backend kind), so
// the CUDA backend lives in its own library and the core builds without CUDA.
#include <functional>
#include <memory>
#include <string>
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
  // A chance to do per-config work once for the whole sweep (e.g. compile configs in parallel).
  virtual void prepare(const std::vector<Config>& configs) { (void)configs; }
  virtual std::unique_ptr<ProblemSession> open(const Problem& problem) = 0;
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
};

using BackendFactory =
    std::function<std::unique_ptr<Backend>(const Family& family, int device_index)>;

void register_family(std::unique_ptr<Family> family);
const Family& find_family(const std::string& name);  // throws Error "unknown family 'x'"
std::vector<std::string> family_names();

void register_backend(const std::string& family, const std::string& backend_kind,
                      BackendFactory factory);
// device_spec: "cpu", "cuda:0". Throws Error for unknown or unavailable devices.
std::unique_ptr<Backend> open_backend(const Family& family, const std::string& device_spec);

// Registers the built-in families and CPU backends (idempotent).
void register_builtin();

}  // namespace ktune

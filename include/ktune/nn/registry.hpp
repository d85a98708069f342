#pragma once
// Backends by name: a small name → factory table. Each backend folder registers its own
// (nn/cpu: register_cpu_backends(), nn/cuda: register_cuda_backends()); the front end calls
// the register functions it links, then make_backend(name) from the command line.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ktune/nn/backend.hpp"

namespace ktune::nn {

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// Adds (or replaces) a backend; `summary` is one line for --help / listings.
void register_backend(const std::string& name, const std::string& summary, BackendFactory make);
// Throws ktune::Error "unknown backend 'x' (known: a, b, c)".
std::unique_ptr<Backend> make_backend(const std::string& name);
// Registered names, sorted, with their summaries.
std::vector<std::pair<std::string, std::string>> backend_list();

// Defined in nn/cpu (library ktune_nn_cpu): reference, ktune (when the tuned CPU libraries are
// built), onednn (when oneDNN is found).
void register_cpu_backends();

}  // namespace ktune::nn

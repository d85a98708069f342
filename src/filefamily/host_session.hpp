#pragma once
// One problem of a C++ file family on the host: argument buffers filled as the file says,
// the expected outputs (the reference function's, or the file's ReferenceArguments), and each
// config verified, then timed, by the shared host protocol (ktune/host_measure.hpp).
#include <memory>

#include "ktune/family.hpp"

namespace ktune::filefamily {

class FileFamily;

std::unique_ptr<ProblemSession> open_host_session(const FileFamily& family, const Problem& problem,
                                                  double llc_bytes);

}  // namespace ktune::filefamily

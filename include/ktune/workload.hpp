#pragma once
// Named workloads (dnn, dnn-small, tiny) and workload files (CSV of the family's features).
#include <string>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/problem.hpp"

namespace ktune {

std::vector<std::string> builtin_workload_names(const std::string& family);
// A builtin name or a path to a CSV file whose header names the family's features (GEMM also
// accepts the shared/data layout: TransposeLHS,TransposeRHS,M,N,K,lda,ldb,ldc,batch).
// Throws Error naming the file and line for malformed input.
Workload load_workload(const Family& family, const std::string& name_or_path);

}  // namespace ktune

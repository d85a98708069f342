#pragma once
// How the packed GEMM kernel cuts a batch entry's C among threads: plain integer policy, apart
// from the SIMD kernel header so tests compiled without -march can check it.
#include <algorithm>
#include <cstdint>
#include <numeric>

namespace ktune::kernels::gemm::cpu::packed_detail {

// Cuts a grid of ip × jp micro-tiles (row panels × column panels of C) into ci × cj parts
// (ci * cj == chunks): the factorization whose largest part holds the fewest micro-tiles, so
// few-panel shapes (m = 32, n = 27) still keep every thread busy. Ties prefer cutting columns
// (each part then packs only its own columns of B).
struct Split {
  int64_t ci = 1, cj = 1;
};
inline Split choose_split(int64_t chunks, int64_t ip, int64_t jp) {
  Split best;
  int64_t best_cost = -1;
  for (int64_t cj = chunks; cj >= 1; --cj) {
    if (chunks % cj != 0) continue;
    const int64_t ci = chunks / cj;
    if (ci > ip || cj > jp) continue;
    const int64_t cost = ((ip + ci - 1) / ci) * ((jp + cj - 1) / cj);
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best = {ci, cj};
    }
  }
  if (best_cost < 0) best = {1, std::min(chunks, jp)};  // fewer tiles than threads
  return best;
}

// Tasks each thread should get on average: more than one, so that the caller can take over
// the tasks of a helper that is slow to start, at the price of packing the shared operand
// once per task.
constexpr int64_t kTasksPerThread = 2;

// Parts each batch entry's C is cut into: none when the batch alone gives every thread
// several entries, else enough that batch * parts is a multiple of threads * per_thread.
inline int64_t task_parts(int64_t batch, int64_t threads, int64_t per_thread) {
  if (threads <= 1) return 1;
  if (batch >= 8 * threads) return 1;
  const int64_t want = threads * per_thread;
  return want / std::gcd(batch, want);
}

}  // namespace ktune::kernels::gemm::cpu::packed_detail

#pragma once
// Combining stores (ktune merge): shards of one sweep, or sweeps of several devices, into one
// store that the learn verbs read as one (multi-device) dataset.
#include <cstddef>
#include <string>
#include <vector>

namespace ktune {

struct MergeSummary {
  size_t read = 0;        // measurements read from the inputs
  size_t added = 0;       // rows the output gained
  size_t duplicates = 0;  // keys the output already held or an earlier input gave
};

// Adds every input's measurements, devices, problem tags and records to `out` (created when
// absent). A key (device, family, problem, config) is kept once: the output's row, else the first
// input's. Every input is read and checked first; an unreadable input, an input that is `out`, or
// records (provenance.hpp) that disagree between inputs and `out` throw Error naming the input
// with `out` untouched. Kill-safe: a new `out` appears only complete (built beside it, then
// renamed); an existing one gains all rows in one transaction, so rerunning a killed merge
// finishes it.
MergeSummary merge_stores(const std::string& out, const std::vector<std::string>& inputs);

}  // namespace ktune

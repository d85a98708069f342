#pragma once
// Entry points of the CUDA backend library (ktune_cuda), built whenever the toolkit is found.
// Without a GPU or driver they fail with a clear Error at open time, never at program start.
#include <string>

#include "ktune/device.hpp"

namespace ktune {

// Registers the CUDA backends of the built-in families ("cuda:N" device specs).
void register_cuda_backends();
// Number of usable CUDA devices; 0 when there is no driver or no GPU (never throws).
int cuda_device_count();
// Name, SM count, shared memory per block/SM, registers, L2, clocks, compute capability.
DeviceInfo query_cuda_device(int index);

}  // namespace ktune

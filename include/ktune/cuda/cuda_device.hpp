#pragma once
// Device selection helpers shared by the CUDA backends.
#include <string>

namespace ktune::cuda {

// Throws Error naming "cuda:<index>" when the device does not exist or CUDA is unusable.
void require_device(int index);
// Makes `index` current on the calling thread (CUDA's current device is per thread).
void use_device(int index);
// The exact real architecture for NVRTC, e.g. "sm_90".
std::string device_arch(int index);
int device_attribute(int index, int attribute_enum, const char* name);

}  // namespace ktune::cuda

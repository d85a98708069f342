#pragma once
// The DLPack structs a consumer reads (dlpack.h, v0.8 and later; the ABI of the unversioned
// capsule "dltensor" that `__dlpack__()` returns when no max_version is asked for). Debian ships
// no dlpack header, and ktune needs only these few fields.
#include <cstdint>

namespace ktune::python::dlpack {

enum DeviceType : int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3, kCUDAManaged = 13 };
enum TypeCode : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4, kComplex = 5, kBool = 6 };

struct Device {
  int32_t device_type;  // DeviceType
  int32_t device_id;
};
struct DataType {
  uint8_t code;  // TypeCode
  uint8_t bits;
  uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: compact row-major
  uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

}  // namespace ktune::python::dlpack

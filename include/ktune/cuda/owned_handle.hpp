#pragma once
// The one owner of the CUDA libraries' handles (events, streams, cuBLAS, ...): each such handle
// is a pointer to an opaque struct, destroyed once, when its owner ends, unless it is null.
#include <memory>
#include <type_traits>

namespace ktune::cuda {

template <class Handle, auto Destroy>
class OwnedHandle {
 public:
  Handle get() const { return owned_.get(); }

 protected:
  OwnedHandle() = default;
  // Takes over a handle the derived constructor created.
  void adopt(Handle handle) { owned_.reset(handle); }

 private:
  struct Destroyer {
    void operator()(Handle handle) const { Destroy(handle); }
  };
  std::unique_ptr<std::remove_pointer_t<Handle>, Destroyer> owned_;
};

}  // namespace ktune::cuda

// cuBLAS(Lt) through the forwarders of src/cuda/cublas_lazy.cpp: not loaded when the program
// starts (this program links ktune_cuda alone), loaded by the first call, which reaches the
// library's own function; with or without a GPU (the status strings need no device).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

namespace {

// Whether the process has loaded lib<name>.so.<major> for some major version (RTLD_NOLOAD
// finds a library only when it is already loaded).
bool loaded(const std::string& name) {
  for (int major = 10; major <= 30; ++major) {
    void* h =
        dlopen(("lib" + name + ".so." + std::to_string(major)).c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (h) {
      dlclose(h);
      return true;
    }
  }
  return false;
}

TEST(CublasLazy, LoadedByTheFirstCallNotAtStart) {
  EXPECT_FALSE(loaded("cublas"));
  EXPECT_FALSE(loaded("cublasLt"));
  EXPECT_EQ(std::string(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED)),
            "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_NE(std::string(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED)), "");
  EXPECT_TRUE(loaded("cublas"));
  cublasLtHandle_t lt = nullptr;
  const cublasStatus_t status = cublasLtCreate(&lt);  // NOT_INITIALIZED without a GPU
  EXPECT_TRUE(status == CUBLAS_STATUS_SUCCESS || status == CUBLAS_STATUS_NOT_INITIALIZED)
      << cublasGetStatusName(status);
  if (status == CUBLAS_STATUS_SUCCESS) {
    EXPECT_EQ(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
  }
  EXPECT_TRUE(loaded("cublasLt"));
}

}  // namespace

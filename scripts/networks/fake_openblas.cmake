# Device build only (the carried sysroot has no OpenBLAS): an empty PkgConfig::OPENBLAS so that
# the GEMM family configures without it; the CPU GEMM benchmark (the only user) is not built there.
if(NOT TARGET PkgConfig::OPENBLAS)
  add_library(PkgConfig::OPENBLAS INTERFACE IMPORTED GLOBAL)
endif()

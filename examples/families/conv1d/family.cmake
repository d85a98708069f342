# conv1d (included by ktune_add_family): what ktune_add_tuned_library(FAMILY conv1d) compiles.
ktune_family_deploy_files(SOURCES cpu/conv1d_cpu_kernel.hpp deploy/tuned_cpu.inl
                          PUBLIC_HEADERS include/ktune/conv1d.hpp)

#pragma once
// Families from files (docs/own-kernels.md): a kernel source plus a tuning-problem file in the
// autotuning community's JSON schema (TuningSchema.json) with ktune's "x-ktune" extensions,
// registered at run time, so that every verb works on the user's own kernel without a rebuild.
#include <string>

namespace ktune {

// Reads the problem file, registers its family (named by x-ktune.Name, else KernelName) and,
// for C++ kernels, its "cpu" backend; returns the family's name. Registering the same file
// again returns the name. Throws Error "<file>: <field>: <why>" for a malformed file, and when
// the name is taken by another family.
std::string register_file_family(const std::string& path);

}  // namespace ktune

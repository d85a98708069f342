// ktune_filefamily of a build without families from files (-DKTUNE_FAMILY_FILES=OFF, as
// scripts/demo.sh builds the CLI): the same API, refusing in one line, so the CLI and its
// options stay the same whichever way it is built.
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/file_family.hpp"
#include "ktune/file_family_deploy.hpp"

namespace ktune {

namespace {

[[noreturn]] void refuse(const std::string& input) {
  throw Error(input +
              ": this ktune was built without families from files (KTUNE_FAMILY_FILES=OFF, as "
              "scripts/demo.sh builds it); scripts/build.sh builds them");
}

}  // namespace

std::string register_file_family(const std::string& path) { refuse(path); }

// No family of this build came from a file.
bool is_file_family(const std::string&) { return false; }

void write_file_family_package(const std::string& dir, const std::vector<ml::PackageSelector>&,
                               ml::PackageOptions, bool) {
  refuse(dir);
}

}  // namespace ktune

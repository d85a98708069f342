#include "ktune/gzip_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "ktune/error.hpp"
#include "ktune/strict_number.hpp"

namespace ktune {

namespace {

std::string zlib_error(gzFile f) {
  int code = 0;
  const char* msg = gzerror(f, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return msg ? msg : "unknown zlib error";
}

// gzopen reads plain files unchanged, so one reader serves both forms.
std::string read_via_zlib(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw Error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  gzbuffer(f, 1 << 17);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      std::string why = zlib_error(f);
      gzclose(f);
      throw Error(fmt::format("cannot read '{}': {}", path, why));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  gzclose(f);
  return out;
}

// file is where the bytes go; shown is the name errors report (the target, not its temp file).
void write_plain(const std::string& file, const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (!f) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
}

void write_gzip(const std::string& file, const std::string& path, std::string_view text) {
  gzFile f = gzopen(file.c_str(), "wb6");
  if (!f) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    // gzwrite takes an unsigned length; write in chunks well below its limit.
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(text.size() - done, 1 << 24));
    if (gzwrite(f, text.data() + done, chunk) != static_cast<int>(chunk)) {
      std::string why = zlib_error(f);
      gzclose(f);
      throw Error(fmt::format("cannot write '{}': {}", path, why));
    }
    done += chunk;
  }
  if (gzclose(f) != Z_OK) throw Error(fmt::format("cannot write '{}': close failed", path));
}

// The descriptor that path names when it names one already open (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, as `-o /dev/stdout` and bash's `-o >(cmd)` give), else -1.
int named_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"})
    if (path.rfind(prefix, 0) == 0)
      if (const auto fd = parse_int64(std::string_view(path).substr(prefix.size()), 0, INT_MAX))
        return static_cast<int>(*fd);
  return -1;
}

// Writes into an open descriptor, keeping what it is: the link behind /dev/stdout names a pipe
// ("pipe:[123]") that cannot be opened by that name, and reopening (or replacing) a file that
// stdout appends to would lose its earlier lines.
void write_descriptor(int fd, const std::string& path, std::string_view text) {
  if (fcntl(fd, F_GETFL) < 0)
    throw Error(fmt::format("cannot write '{}': no such open file descriptor", path));
  std::fflush(fd == 2 ? stderr : stdout);  // what the program printed there comes first
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
}

// The file a write to path lands in: through every symbolic link (relative targets resolved
// against the link's directory), so that the rename replaces the target and the link stays.
std::filesystem::path final_target(const std::string& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec))) return p;
    const std::filesystem::path next = std::filesystem::read_symlink(p, ec);
    if (ec) throw Error(fmt::format("cannot write '{}': {}", path, ec.message()));
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  throw Error(fmt::format("cannot write '{}': too many levels of symbolic links", path));
}

}  // namespace

bool has_gz_suffix(std::string_view path) {
  return path.size() >= 3 && path.substr(path.size() - 3) == ".gz";
}

std::string read_text_file(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  if (std::filesystem::is_directory(path))
    throw Error(fmt::format("cannot read '{}': is a directory", path));
  return read_via_zlib(path);
}

void write_text_file(const std::string& path, std::string_view text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) throw Error("cannot write to stdout");
    return;
  }
  if (const int fd = named_descriptor(path); fd >= 0) {
    write_descriptor(fd, path, text);
    return;
  }
  const std::filesystem::path target = final_target(path);
  std::error_code ec;
  const auto status = std::filesystem::status(target, ec);
  if (std::filesystem::is_directory(status))
    throw Error(fmt::format("cannot write '{}': is a directory", path));
  auto write = [&](const std::string& file) {
    if (has_gz_suffix(path))
      write_gzip(file, path, text);
    else
      write_plain(file, path, text);
  };
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    write(target.string());  // a FIFO or device: there is nothing to replace, write into it
    return;
  }
  const std::string tmp = target.string() + ".tmp";
  try {
    write(tmp);
  } catch (const Error&) {
    std::remove(tmp.c_str());
    throw;
  }
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write '{}': {}", path, ec.message()));
  }
}

}  // namespace ktune

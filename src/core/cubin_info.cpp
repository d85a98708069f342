#include "ktune/cubin_info.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/excerpt.hpp"

namespace ktune {
namespace {

// The ELF64 layout (System V gABI) and NVIDIA's attribute records in .nv.info, as nvcc 13 and
// NVRTC 13 write them for sm_90 (what cuobjdump -elf prints as EIFMT_* / EIATTR_*).
constexpr std::string_view kElfMagic = "\177ELF";
constexpr uint64_t kElfHeaderBytes = 64;
constexpr uint64_t kSectionHeaderBytes = 64;
constexpr uint64_t kSymbolBytes = 24;
constexpr uint32_t kShtSymtab = 2;
constexpr uint8_t kEifmtNval = 0x01;  // attribute alone: 2 bytes
constexpr uint8_t kEifmtBval = 0x02;  // + 2-byte value
constexpr uint8_t kEifmtHval = 0x03;  // + 2-byte value
constexpr uint8_t kEifmtSval = 0x04;  // + u16 size + that many bytes
constexpr uint8_t kEiattrRegcount = 0x2f;
constexpr uint64_t kMaxRegisters = 255;  // per thread, on every architecture since sm_35

[[noreturn]] void fail(const std::string& what) { throw Error("CUBIN: " + what); }

// Whether bytes [at, at + count) lie inside `size` bytes (no overflow for any inputs).
bool holds(uint64_t size, uint64_t at, uint64_t count) { return at <= size && count <= size - at; }

// A little-endian unsigned of `width` bytes at `at`; the caller has checked the bounds.
uint64_t le(std::string_view bytes, uint64_t at, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i)
    value = value << 8 | static_cast<unsigned char>(bytes[at + uint64_t(i)]);
  return value;
}

// The NUL-terminated string at `offset` of a string table.
std::string_view string_at(std::string_view table, uint64_t offset, const std::string& what) {
  if (offset >= table.size())
    fail(fmt::format("{}: name offset {} is outside its string table ({} bytes)", what, offset,
                     table.size()));
  const size_t end = table.find('\0', offset);
  if (end == std::string_view::npos)
    fail(fmt::format("{}: name at offset {} is not NUL-terminated in its string table", what,
                     offset));
  return table.substr(offset, end - offset);
}

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};

class Cubin {
 public:
  explicit Cubin(std::string_view image) : image_(image) {
    if (image.size() < kElfHeaderBytes)
      fail(fmt::format("{} bytes, shorter than an ELF64 header (64 bytes)", image.size()));
    if (image.substr(0, 4) != kElfMagic) fail("not an ELF file (bad magic)");
    if (image[4] != 2)
      fail(fmt::format("not ELF64 (class byte {})", static_cast<unsigned char>(image[4])));
    if (image[5] != 1)
      fail(fmt::format("not little-endian (data byte {})", static_cast<unsigned char>(image[5])));
    const uint64_t shoff = le(image, 0x28, 8);
    const uint64_t shentsize = le(image, 0x3A, 2), shnum = le(image, 0x3C, 2);
    const uint64_t shstrndx = le(image, 0x3E, 2);
    if (shnum == 0) fail("no section headers");
    if (shentsize < kSectionHeaderBytes)
      fail(fmt::format("section header size {} is below 64 bytes", shentsize));
    if (!holds(image.size(), shoff, shnum * shentsize))
      fail(fmt::format("section headers ({} x {} bytes at offset {}) run past the end ({} bytes)",
                       shnum, shentsize, shoff, image.size()));
    if (shstrndx >= shnum)
      fail(fmt::format("section name table index {} is not one of the {} sections", shstrndx,
                       shnum));
    sections_.resize(shnum);
    for (uint64_t i = 0; i < shnum; ++i) {
      const uint64_t at = shoff + i * shentsize;
      Section& s = sections_[i];
      s.name = uint32_t(le(image, at, 4));
      s.type = uint32_t(le(image, at + 4, 4));
      s.offset = le(image, at + 0x18, 8);
      s.size = le(image, at + 0x20, 8);
      s.link = uint32_t(le(image, at + 0x28, 4));
      s.entsize = le(image, at + 0x38, 8);
    }
    names_ = bytes(shstrndx, "the section name table");
  }

  // The bytes of section `index`, checked to lie inside the image.
  std::string_view bytes(uint64_t index, const std::string& what) const {
    if (index >= sections_.size())
      fail(fmt::format("{}: section index {} is not one of the {} sections", what, index,
                       sections_.size()));
    const Section& s = sections_[index];
    if (!holds(image_.size(), s.offset, s.size))
      fail(fmt::format("{} (section {}: {} bytes at offset {}) runs past the end ({} bytes)", what,
                       index, s.size, s.offset, image_.size()));
    return image_.substr(s.offset, s.size);
  }

  // The first section named `name` (or, with name empty, of type `type`).
  std::optional<uint64_t> find(std::string_view name, uint32_t type = 0) const {
    for (uint64_t i = 0; i < sections_.size(); ++i) {
      const std::string_view n = string_at(names_, sections_[i].name, fmt::format("section {}", i));
      if (name.empty() ? sections_[i].type == type : n == name) return i;
    }
    return std::nullopt;
  }

  const Section& operator[](uint64_t index) const { return sections_[index]; }

 private:
  std::string_view image_;
  std::vector<Section> sections_;
  std::string_view names_;
};

}  // namespace

int cubin_register_count(std::string_view cubin, std::string_view kernel_symbol) {
  const Cubin elf(cubin);
  const std::string kernel = "'" + excerpt(kernel_symbol) + "'";

  const std::optional<uint64_t> symtab_index = elf.find("", kShtSymtab);
  if (!symtab_index) fail("no symbol table (.symtab)");
  const Section& symtab = elf[*symtab_index];
  if (symtab.entsize != kSymbolBytes)
    fail(fmt::format("symbol table entries of {} bytes, not 24", symtab.entsize));
  const std::string_view symbols = elf.bytes(*symtab_index, "the symbol table");
  const std::string_view symbol_names = elf.bytes(symtab.link, "the symbol name table");
  const uint64_t symbol_count = symbols.size() / kSymbolBytes;
  std::optional<uint64_t> symbol;  // index 0 is the undefined symbol
  for (uint64_t i = 1; i < symbol_count && !symbol; ++i) {
    const uint64_t name = le(symbols, i * kSymbolBytes, 4);
    if (string_at(symbol_names, name, fmt::format("symbol {}", i)) == kernel_symbol) symbol = i;
  }
  if (!symbol) fail(fmt::format("kernel {} is not in the symbol table", kernel));

  const std::optional<uint64_t> info_index = elf.find(".nv.info");
  if (!info_index) fail("no .nv.info section");
  const std::string_view info = elf.bytes(*info_index, ".nv.info");
  std::optional<uint64_t> registers;
  for (uint64_t at = 0; at < info.size();) {
    if (!holds(info.size(), at, 2))
      fail(fmt::format(".nv.info: record at offset {} is cut short", at));
    const auto format = static_cast<uint8_t>(info[at]);
    const auto attribute = static_cast<uint8_t>(info[at + 1]);
    uint64_t length = 0;
    if (format == kEifmtNval) {
      length = 2;
    } else if (format == kEifmtBval || format == kEifmtHval) {
      length = 4;
    } else if (format == kEifmtSval) {
      if (!holds(info.size(), at, 4))
        fail(fmt::format(".nv.info: record at offset {} is cut short", at));
      length = 4 + le(info, at + 2, 2);
    } else {
      fail(fmt::format(".nv.info: unknown record format 0x{:02x} at offset {}", format, at));
    }
    if (!holds(info.size(), at, length))
      fail(
          fmt::format(".nv.info: record at offset {} ({} bytes) runs past the section's end ({} "
                      "bytes)",
                      at, length, info.size()));
    if (attribute == kEiattrRegcount) {
      if (format != kEifmtSval || length != 12)
        fail(
            fmt::format(".nv.info: register count record at offset {} is not a symbol index "
                        "and a count (format 0x{:02x}, {} bytes)",
                        at, format, length));
      const uint64_t index = le(info, at + 4, 4), count = le(info, at + 8, 4);
      if (index >= symbol_count)
        fail(fmt::format(".nv.info: register count record at offset {} names symbol {} of {}", at,
                         index, symbol_count));
      if (index == *symbol) {
        if (registers && *registers != count)
          fail(fmt::format("kernel {} has two register counts ({} and {})", kernel, *registers,
                           count));
        registers = count;
      }
    }
    at += length;
  }
  if (!registers) fail(fmt::format("no register count (EIATTR_REGCOUNT) for kernel {}", kernel));
  if (*registers > kMaxRegisters)
    fail(
        fmt::format("kernel {}: register count {} is above {}", kernel, *registers, kMaxRegisters));
  return int(*registers);
}

}  // namespace ktune

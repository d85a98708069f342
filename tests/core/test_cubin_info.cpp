// The CUBIN register-count reader (include/ktune/cubin_info.hpp) on a synthetic ELF64 image laid
// out as nvcc writes one (.shstrtab, .strtab, .symtab, .nv.info): the count of each kernel among
// other records, and one-line errors naming each planted malformation. Real NVRTC cubins are read
// by tests/gpu/test_gemm_mma_kernels.cpp (MmaGemmNvrtc.Registers...).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "ktune/cubin_info.hpp"
#include "ktune/error.hpp"

namespace ktune {
namespace {

const std::string kKernel = "_Z6kernelPf";
const std::string kOther = "other_kernel";

void put(std::string& s, size_t at, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) s[at + size_t(i)] = char(value >> (8 * i) & 0xff);
}

std::string le(uint64_t value, int width) {
  std::string s(size_t(width), '\0');
  put(s, 0, value, width);
  return s;
}

// .nv.info records: format 0x04 (a u16 size and a payload), 0x03 (a u16 value), 0x01 (none).
std::string sval(uint8_t attribute, const std::string& payload) {
  return std::string{'\x04', char(attribute)} + le(payload.size(), 2) + payload;
}
std::string regcount(uint32_t symbol, uint32_t registers) {
  return sval(0x2f, le(symbol, 4) + le(registers, 4));
}
std::string hval(uint8_t attribute, uint16_t value) {
  return std::string{'\x03', char(attribute)} + le(value, 2);
}
std::string nval(uint8_t attribute) { return std::string{'\x01', char(attribute)}; }

// Sections: 0 null, 1 .shstrtab, 2 .strtab, 3 .symtab (symbols 1 kKernel, 2 kOther), 4 .nv.info.
constexpr size_t kNvInfo = 4, kSymtab = 3;
std::string make_cubin(const std::string& nv_info) {
  const std::string shstrtab("\0.shstrtab\0.strtab\0.symtab\0.nv.info\0", 36);
  const std::string strtab = std::string(1, '\0') + kKernel + '\0' + kOther + '\0';
  std::string symtab(3 * 24, '\0');
  put(symtab, 24, 1, 4);
  put(symtab, 48, 1 + kKernel.size() + 1, 4);
  symtab[24 + 4] = symtab[48 + 4] = 0x12;  // STB_GLOBAL, STT_FUNC
  struct Placed {
    uint32_t name, type, link;
    uint64_t entsize;
    const std::string* bytes;
  };
  const Placed placed[] = {{1, 3, 0, 0, &shstrtab},
                           {11, 3, 0, 0, &strtab},
                           {19, 2, 2, 24, &symtab},
                           {27, 0x70000000, 3, 0, &nv_info}};  // SHT_LOPROC, as nvcc writes it
  std::string image(64, '\0');
  image.replace(0, 4, "\177ELF");
  image[4] = 2;  // ELFCLASS64
  image[5] = 1;  // little-endian
  image[6] = 1;
  put(image, 0x10, 2, 2);    // ET_EXEC
  put(image, 0x12, 190, 2);  // EM_CUDA
  put(image, 0x34, 64, 2);
  put(image, 0x3A, 64, 2);
  put(image, 0x3C, 5, 2);
  put(image, 0x3E, 1, 2);
  std::string headers(64, '\0');  // the null section's
  for (const Placed& p : placed) {
    image.resize((image.size() + 7) / 8 * 8, '\0');
    std::string h(64, '\0');
    put(h, 0, p.name, 4);
    put(h, 4, p.type, 4);
    put(h, 0x18, image.size(), 8);
    put(h, 0x20, p.bytes->size(), 8);
    put(h, 0x28, p.link, 4);
    put(h, 0x38, p.entsize, 8);
    headers += h;
    image += *p.bytes;
  }
  image.resize((image.size() + 7) / 8 * 8, '\0');
  put(image, 0x28, image.size(), 8);
  return image + headers;
}

// Where a field of section header `index` lies in `cubin`.
size_t section_field(const std::string& cubin, size_t index, size_t field) {
  size_t shoff = 0;
  for (int i = 7; i >= 0; --i) shoff = shoff << 8 | static_cast<unsigned char>(cubin[0x28 + i]);
  return shoff + index * 64 + field;
}

// The records nvcc writes around a kernel's count: frame size, stack size, others.
const std::string kInfo = sval(0x11, le(1, 4) + le(0, 4)) + regcount(2, 40) + nval(0x05) +
                          hval(0x1b, 3) + regcount(1, 128) + sval(0x12, le(1, 4) + le(0, 4));

std::string error_of(std::string_view cubin, std::string_view kernel = kKernel) {
  try {
    return "count " + std::to_string(cubin_register_count(cubin, kernel));
  } catch (const Error& e) {
    return e.what();
  }
}

void expect_error(const std::string& cubin, const std::string& needle,
                  std::string_view kernel = kKernel) {
  const std::string what = error_of(cubin, kernel);
  EXPECT_NE(what.find(needle), std::string::npos) << what;
  EXPECT_EQ(what.rfind("CUBIN: ", 0), 0u) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
}

TEST(CubinInfo, ReadsEachKernelsCountAmongOtherRecords) {
  const std::string cubin = make_cubin(kInfo);
  EXPECT_EQ(cubin_register_count(cubin, kKernel), 128);
  EXPECT_EQ(cubin_register_count(cubin, kOther), 40);
  // The same count twice is one count; an empty .nv.info holds none.
  EXPECT_EQ(cubin_register_count(make_cubin(kInfo + regcount(1, 128)), kKernel), 128);
  expect_error(make_cubin(""), "no register count (EIATTR_REGCOUNT) for kernel '_Z6kernelPf'");
}

TEST(CubinInfo, NamesEachPlantedMalformation) {
  const std::string good = make_cubin(kInfo);
  expect_error(good.substr(0, 40), "40 bytes, shorter than an ELF64 header");
  expect_error("", "0 bytes, shorter than an ELF64 header");
  std::string bad = good;
  bad[1] = 'X';
  expect_error(bad, "not an ELF file (bad magic)");
  bad = good;
  bad[4] = 1;
  expect_error(bad, "not ELF64 (class byte 1)");
  bad = good;
  bad[5] = 2;
  expect_error(bad, "not little-endian (data byte 2)");
  expect_error(good.substr(0, good.size() - 1), "section headers (5 x 64 bytes at offset");
  bad = good;
  put(bad, 0x3E, 7, 2);
  expect_error(bad, "section name table index 7 is not one of the 5 sections");
  bad = good;
  put(bad, 0x3A, 32, 2);
  expect_error(bad, "section header size 32 is below 64 bytes");
  bad = good;
  put(bad, 0x3C, 0, 2);
  expect_error(bad, "no section headers");

  bad = good;  // .nv.info's bytes beyond the file, at an offset near 2^64 and at a plain one
  put(bad, section_field(bad, kNvInfo, 0x18), ~uint64_t(0) - 4, 8);
  expect_error(bad, ".nv.info (section 4: 54 bytes at offset 18446744073709551611) runs past");
  put(bad, section_field(bad, kNvInfo, 0x18), good.size() - 10, 8);
  expect_error(bad, ".nv.info (section 4: 54 bytes at offset");
  bad = good;
  put(bad, section_field(bad, kSymtab, 0x28), 9, 4);
  expect_error(bad, "the symbol name table: section index 9 is not one of the 5 sections");
  bad = good;
  put(bad, section_field(bad, kSymtab, 0x38), 16, 8);
  expect_error(bad, "symbol table entries of 16 bytes, not 24");
  bad = good;
  put(bad, section_field(bad, kNvInfo, 0), 400, 4);
  expect_error(bad, "section 4: name offset 400 is outside its string table (36 bytes)");
  bad = good;
  put(bad, section_field(bad, kNvInfo, 0), 28, 4);  // "nv.info": not the name
  expect_error(bad, "no .nv.info section");
  bad = good;
  put(bad, section_field(bad, kSymtab, 4), 3, 4);
  expect_error(bad, "no symbol table (.symtab)");

  expect_error(good, "kernel 'nope' is not in the symbol table", "nope");
  expect_error(good, "kernel '\\x01' is not in the symbol table", "\x01");
  expect_error(make_cubin(kInfo + nval(0x2f)), "register count record at offset 54 is not");
  expect_error(make_cubin(kInfo + std::string{'\x07', '\x2f'}),
               ".nv.info: unknown record format 0x07 at offset 54");
  expect_error(make_cubin(kInfo + sval(0x12, "12345678").substr(0, 10)),
               ".nv.info: record at offset 54 (12 bytes) runs past the section's end (64 bytes)");
  expect_error(make_cubin(kInfo + "\x04"), ".nv.info: record at offset 54 is cut short");
  expect_error(make_cubin(kInfo + regcount(9, 1)),
               "register count record at offset 54 names symbol 9 of 3");
  expect_error(make_cubin(kInfo + regcount(1, 64)),
               "kernel '_Z6kernelPf' has two register counts (128 and 64)");
  expect_error(make_cubin(regcount(1, 256)), "kernel '_Z6kernelPf': register count 256 is above");
}

// Every prefix of a good image and every byte of it set to 0x00 / 0xff: a count or an Error,
// never anything else (tests/fuzz/fuzz_cubin.cpp searches further).
TEST(CubinInfo, EveryTruncationAndByteFlipIsACountOrAnError) {
  const std::string good = make_cubin(kInfo);
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(cubin_register_count(good.substr(0, n), kKernel), Error);
  for (size_t i = 0; i < good.size(); ++i)
    for (const char byte : {'\x00', '\xff'}) {
      std::string bad = good;
      bad[i] = byte;
      const std::string what = error_of(bad);
      EXPECT_TRUE(what.rfind("CUBIN: ", 0) == 0 || what.rfind("count ", 0) == 0) << i;
    }
}

}  // namespace
}  // namespace ktune

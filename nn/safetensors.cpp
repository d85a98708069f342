// The safetensors reader and writer of ktune::nn::Weights (format: docs/networks.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/json_limits.hpp"
#include "ktune/nn/weights.hpp"

namespace ktune::nn {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace {

constexpr uint64_t kMaxHeaderBytes = uint64_t(100) << 20;  // safetensors' own limit

// Bytes per element of the dtypes safetensors defines; 0 for unknown names.
int64_t dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, int64_t> sizes = {
      {"F64", 8}, {"F32", 4}, {"F16", 2},  {"BF16", 2},    {"I64", 8},
      {"I32", 4}, {"I16", 2}, {"I8", 1},   {"U64", 8},     {"U32", 4},
      {"U16", 2}, {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

struct Entry {
  std::string name;
  Tensor tensor;
  uint64_t begin = 0, end = 0;
};

Entry parse_entry(const std::string& path, const std::string& name, const nlohmann::json& j,
                  uint64_t data_bytes) {
  const auto fail = [&](const std::string& what) {
    return Error(fmt::format("{}: tensor '{}': {}", path, name, what));
  };
  if (!j.is_object()) throw fail("header entry is not an object");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!j.contains(key)) throw fail(fmt::format("header entry has no '{}'", key));
  Entry e;
  e.name = name;
  if (!j["dtype"].is_string()) throw fail("dtype is not a string");
  e.tensor.dtype = j["dtype"].get<std::string>();
  const int64_t elem = dtype_bytes(e.tensor.dtype);
  if (elem == 0) throw fail(fmt::format("unknown dtype '{}'", e.tensor.dtype));
  if (!j["shape"].is_array()) throw fail("shape is not an array");
  uint64_t count = 1;
  for (const auto& d : j["shape"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      throw fail("shape holds something other than a non-negative integer");
    const auto v = d.get<uint64_t>();
    if (v != 0 && count > std::numeric_limits<uint64_t>::max() / 8 / v)
      throw fail("shape is too large");
    count *= v;
    e.tensor.shape.push_back(int64_t(v));
  }
  const auto& off = j["data_offsets"];
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
      !off[1].is_number_unsigned())
    throw fail("data_offsets is not [begin, end] of non-negative integers");
  e.begin = off[0].get<uint64_t>();
  e.end = off[1].get<uint64_t>();
  if (e.begin > e.end || e.end > data_bytes)
    throw fail(fmt::format("data_offsets [{}, {}] outside the {} data bytes (truncated file?)",
                           e.begin, e.end, data_bytes));
  if (e.end - e.begin != count * uint64_t(elem))
    throw fail(fmt::format("data_offsets span {} bytes, shape {} of {} needs {}", e.end - e.begin,
                           shape_text(e.tensor.shape), e.tensor.dtype, count * uint64_t(elem)));
  return e;
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

Weights Weights::load_safetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  // Weights and --input images alike are safetensors files: the message names neither.
  if (!in)
    throw Error(fmt::format("{}: cannot open ({})", path, std::strerror(errno ? errno : ENOENT)));
  const auto file_bytes = uint64_t(in.tellg());
  in.seekg(0);
  if (file_bytes < 8) throw Error(fmt::format("{}: truncated: no 8-byte header length", path));
  unsigned char len_bytes[8];
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  uint64_t header_bytes = 0;
  for (int i = 7; i >= 0; --i) header_bytes = header_bytes << 8 | len_bytes[i];
  if (header_bytes > kMaxHeaderBytes)
    throw Error(fmt::format("{}: header length {} over the {} byte limit", path, header_bytes,
                            kMaxHeaderBytes));
  if (header_bytes > file_bytes - 8)
    throw Error(fmt::format("{}: truncated: header length {} but only {} bytes follow", path,
                            header_bytes, file_bytes - 8));
  std::string text(header_bytes, '\0');
  in.read(text.data(), std::streamsize(header_bytes));
  check_json_depth(text, path);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: bad JSON header: {}", path, e.what()));
  }
  if (!header.is_object()) throw Error(fmt::format("{}: the JSON header is not an object", path));

  const uint64_t data_start = 8 + header_bytes;
  const uint64_t data_bytes = file_bytes - data_start;
  std::vector<Entry> entries;
  for (const auto& [name, j] : header.items())
    if (name != "__metadata__") entries.push_back(parse_entry(path, name, j, data_bytes));
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  const Entry* furthest = nullptr;  // the entry reaching furthest so far
  for (const auto& e : entries) {
    if (e.begin == e.end) continue;  // empty tensors occupy nothing
    if (furthest && e.begin < furthest->end)
      throw Error(fmt::format("{}: tensor '{}' overlaps tensor '{}' in the data", path, e.name,
                              furthest->name));
    if (!furthest || e.end > furthest->end) furthest = &e;
  }

  Weights w(path);
  for (auto& e : entries) {
    if (e.tensor.dtype == "F32") {
      e.tensor.data.resize((e.end - e.begin) / sizeof(float));
      in.seekg(std::streamoff(data_start + e.begin));
      in.read(reinterpret_cast<char*>(e.tensor.data.data()), std::streamsize(e.end - e.begin));
      if (!in) throw Error(fmt::format("{}: tensor '{}': read failed", path, e.name));
      for (size_t i = 0; i < e.tensor.data.size(); ++i)
        if (!std::isfinite(e.tensor.data[i]))
          throw Error(fmt::format("{}: tensor '{}': value {} at flat index {} is not finite", path,
                                  e.name, e.tensor.data[i], i));
    }
    w.tensors_[e.name] = std::move(e.tensor);
  }
  return w;
}

void Weights::save_safetensors(const std::string& path) const {
  nlohmann::json header = nlohmann::json::object();
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors_) {
    if (t.dtype != "F32") throw Error(fmt::format("{}: tensor '{}' is not F32", path, name));
    const uint64_t bytes = t.data.size() * sizeof(float);
    header[name] = {
        {"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.resize((text.size() + 7) / 8 * 8, ' ');  // the data starts 8-byte aligned
  std::ofstream out(path, std::ios::binary);
  if (!out)
    throw Error(fmt::format("{}: cannot write ({})", path, std::strerror(errno ? errno : EIO)));
  unsigned char len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<unsigned char>(text.size() >> (8 * i));
  out.write(reinterpret_cast<const char*>(len_bytes), 8);
  out.write(text.data(), std::streamsize(text.size()));
  for (const auto& [name, t] : tensors_)
    out.write(reinterpret_cast<const char*>(t.data.data()),
              std::streamsize(t.data.size() * sizeof(float)));
  if (!out) throw Error(fmt::format("{}: write failed", path));
}

const Tensor& Weights::get(const std::string& name, const std::vector<int64_t>& shape) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error(fmt::format("{}: tensor '{}' is missing", source_, name));
  const Tensor& t = it->second;
  if (t.dtype != "F32")
    throw Error(fmt::format("{}: tensor '{}' has dtype {}, expected F32", source_, name, t.dtype));
  if (t.shape != shape)
    throw Error(fmt::format("{}: tensor '{}' has shape {}, expected {}", source_, name,
                            shape_text(t.shape), shape_text(shape)));
  return t;
}

}  // namespace ktune::nn

// The safetensors reader: a file written by Python (tests/nn/data/make_fixture.py), a round trip,
// and every kind of bad file rejected with one line naming the file and the tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "ktune/error.hpp"
#include "ktune/nn/network.hpp"
#include "ktune/nn/weights.hpp"

namespace ktune::nn {
namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  const auto dir = fs::path(::testing::TempDir()) / "ktune_nn_safetensors";
  fs::create_directories(dir);
  return (dir / name).string();
}

// A file of an 8-byte length (`length` or the header's size), the header text, then `data`.
std::string write_file(const std::string& name, const std::string& header, const std::string& data,
                       uint64_t length = std::numeric_limits<uint64_t>::max()) {
  const std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary);
  if (length == std::numeric_limits<uint64_t>::max()) length = header.size();
  for (int i = 0; i < 8; ++i) out.put(char(length >> (8 * i)));
  out << header << data;
  return path;
}

std::string floats(std::initializer_list<float> values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

// The message of the Error thrown by loading (and, when `tensor` is given, getting) a file.
std::string error_of(const std::string& path, const std::string& tensor = "",
                     std::vector<int64_t> shape = {}) {
  try {
    const auto w = Weights::load_safetensors(path);
    if (!tensor.empty()) w.get(tensor, shape);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& message, const std::string& path, const std::string& part) {
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(part), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(NnSafetensors, ReadsAFileWrittenByPython) {
  const std::string path = std::string(KTUNE_SOURCE_DIR) + "/tests/nn/data/fixture.safetensors";
  const auto w = Weights::load_safetensors(path);
  const auto& conv = w.get("conv1.weight", {2, 3, 1, 2});
  ASSERT_EQ(conv.data.size(), 12u);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(conv.data[i], float(i) * 0.5f - 1.0f);
  EXPECT_EQ(w.get("fc.bias", {3}).data, (std::vector<float>{1e-3f, -2.5f, 3.25e4f}));
  // PyTorch's int64 batch counter is listed, skipped, and an error only when asked for as F32.
  ASSERT_TRUE(w.contains("bn1.num_batches_tracked"));
  expect_error(error_of(path, "bn1.num_batches_tracked", {}), path,
               "tensor 'bn1.num_batches_tracked' has dtype I64, expected F32");
}

TEST(NnSafetensors, RoundTripOfRandomNetworkWeights) {
  const Network net = make_network("tiny", 1);
  const Weights w = random_weights(net, 3);
  const std::string path = temp_path("roundtrip.safetensors");
  w.save_safetensors(path);
  const auto back = Weights::load_safetensors(path);
  ASSERT_EQ(back.tensors().size(), w.tensors().size());
  for (const auto& [name, t] : w.tensors()) EXPECT_EQ(back.get(name, t.shape).data, t.data) << name;
  // The same seed draws the same weights; another seed others.
  EXPECT_EQ(random_weights(net, 3).tensors().at("fc.weight").data,
            w.tensors().at("fc.weight").data);
  EXPECT_NE(random_weights(net, 4).tensors().at("fc.weight").data,
            w.tensors().at("fc.weight").data);
}

TEST(NnSafetensors, BadFilesAreRejectedNamingFileAndTensor) {
  const std::string good = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  const std::string two = floats({1.0f, 2.0f});
  // Sanity: the good file loads.
  EXPECT_EQ(error_of(write_file("good.st", good, two), "a", {2}), "");

  std::string p = write_file("missing.st", good, two);
  expect_error(error_of(p, "b", {2}), p, "tensor 'b' is missing");
  p = write_file("shape.st", good, two);
  expect_error(error_of(p, "a", {1, 2}), p, "tensor 'a' has shape [2], expected [1, 2]");
  p = write_file("dtype.st", R"({"a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})",
                 floats({1.0f}));
  expect_error(error_of(p, "a", {2}), p, "tensor 'a' has dtype F16, expected F32");
  p = write_file("unknown_dtype.st",
                 R"({"a": {"dtype": "Q7", "shape": [2], "data_offsets": [0, 8]}})", two);
  expect_error(error_of(p), p, "tensor 'a': unknown dtype 'Q7'");
  p = write_file("range.st", R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                 two);
  expect_error(error_of(p), p, "tensor 'a': data_offsets [4, 12] outside the 8 data bytes");
  p = write_file("span.st", R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})",
                 two);
  expect_error(error_of(p), p, "tensor 'a': data_offsets span 8 bytes, shape [3] of F32 needs 12");
  p = write_file("overlap.st",
                 R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                     "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                 two);
  expect_error(error_of(p), p, "tensor 'b' overlaps tensor 'a'");
  p = write_file("truncated.st", good, floats({1.0f}));
  expect_error(error_of(p), p,
               "tensor 'a': data_offsets [0, 8] outside the 4 data bytes (truncated file?)");
  p = write_file("short_header.st", good, "", 4096);
  expect_error(error_of(p), p, "truncated: header length 4096");
  p = write_file("huge_header.st", good, two, uint64_t(1) << 40);
  expect_error(error_of(p), p, "over the");
  p = write_file("json.st", R"({"a": {"dtype": "F32", )", two);
  expect_error(error_of(p), p, "bad JSON header");
  p = write_file("deep.st", std::string(200, '[') + std::string(200, ']'), "");
  expect_error(error_of(p), p, "nested deeper");
  p = write_file("not_object.st", "[1, 2]", "");
  expect_error(error_of(p), p, "the JSON header is not an object");
  p = write_file("no_offsets.st", R"({"a": {"dtype": "F32", "shape": [2]}})", two);
  expect_error(error_of(p), p, "tensor 'a': header entry has no 'data_offsets'");
  p = write_file("neg_shape.st",
                 R"({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", two);
  expect_error(error_of(p), p, "tensor 'a': shape holds");
  p = write_file("nan.st", good, floats({1.0f, std::nanf("")}));
  expect_error(error_of(p), p, "tensor 'a': value nan at flat index 1 is not finite");
  p = write_file("inf.st", good, floats({-std::numeric_limits<float>::infinity(), 1.0f}));
  expect_error(error_of(p), p, "tensor 'a': value -inf at flat index 0 is not finite");
  p = temp_path("tiny.st");
  std::ofstream(p, std::ios::binary) << "abc";
  expect_error(error_of(p), p, "truncated: no 8-byte header length");
  p = temp_path("does_not_exist.st");
  expect_error(error_of(p), p, "cannot open");
}

}  // namespace
}  // namespace ktune::nn

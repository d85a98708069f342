#pragma once
// One call taking a workspace on a stream captured into a graph (relaxed mode): the workspace it
// got and the nodes of the captured graph (a stream-ordered allocation and its free are two).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <utility>

template <typename Call>
std::pair<void*, size_t> captured_call(cudaStream_t stream, Call call) {
  EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed), cudaSuccess);
  void* workspace = call();
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  size_t nodes = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  cudaGraphDestroy(graph);
  return {workspace, nodes};
}

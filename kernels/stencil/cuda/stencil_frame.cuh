// The stencil kernel frame, compiled by NVRTC after the prelude, the generated definitions
//   typedef <int|float|double> ktune_elem;  #define KTUNE_NORTH/SOUTH/EAST/WEST <n>
//   #define KTUNE_USER <user function name>
// and the user function. One thread per output cell: block (x = cols, y = rows) computes a
// blockDim.y x blockDim.x tile of the row-major rows x cols output. The block first stages
// its tile plus the border (KTUNE_NORTH rows above, ..., corners included) in dynamic shared
// memory, (blockDim.y + N + S) * (blockDim.x + W + E) elements, each thread loading cells at a
// stride of the block size; outside cells are 0 (clamp == 0) or the nearest in-range cell.
// Launch: grid (ceil(cols / blockDim.x), ceil(rows / blockDim.y)), dynamic shared memory as
// above; rows, cols >= 1 and rows * cols < 2^31.
#ifndef KTUNE_STENCIL_FRAME_CUH
#define KTUNE_STENCIL_FRAME_CUH

__global__ void ktune_stencil(const ktune_elem* __restrict__ in, ktune_elem* __restrict__ out,
                              int rows, int cols, int clamp) {
  extern __shared__ double ktune_stencil_smem[];  // double: 8-byte alignment for every type
  ktune_elem* tile = reinterpret_cast<ktune_elem*>(ktune_stencil_smem);
  const int wr = blockDim.y, wc = blockDim.x;
  const int tile_cols = wc + KTUNE_WEST + KTUNE_EAST;
  const int tile_cells = (wr + KTUNE_NORTH + KTUNE_SOUTH) * tile_cols;
  const int row0 = int(blockIdx.y) * wr - KTUNE_NORTH;
  const int col0 = int(blockIdx.x) * wc - KTUNE_WEST;
  for (int i = int(threadIdx.y) * wc + int(threadIdx.x); i < tile_cells; i += wr * wc) {
    const int local_row = i / tile_cols;
    int r = row0 + local_row;
    int c = col0 + (i - local_row * tile_cols);
    ktune_elem value = ktune_elem(0);
    const bool inside = r >= 0 && r < rows && c >= 0 && c < cols;
    if (inside || clamp) {
      r = r < 0 ? 0 : (r >= rows ? rows - 1 : r);
      c = c < 0 ? 0 : (c >= cols ? cols - 1 : c);
      value = in[(long long)r * cols + c];
    }
    tile[i] = value;
  }
  __syncthreads();
  const int r = int(blockIdx.y) * wr + int(threadIdx.y);
  const int c = int(blockIdx.x) * wc + int(threadIdx.x);
  if (r < rows && c < cols) {
    const KtuneStaged<ktune_elem> staged{
        tile + (int(threadIdx.y) + KTUNE_NORTH) * tile_cols + int(threadIdx.x) + KTUNE_WEST,
        tile_cols};
    out[(long long)r * cols + c] = KTUNE_USER<ktune_elem>(staged);
  }
}

#endif

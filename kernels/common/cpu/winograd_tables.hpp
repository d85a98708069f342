#pragma once
// Winograd F(m×m, 3×3) (Lavin & Gray), m = 2 or 4, α = m + 2: the transform matrices
//   Y = A^T [ (G g G^T) ⊙ (B^T d B) ] A
// for a 3×3 filter g and an α×α input tile d, and the sandwich T x T^T that applies them to a
// matrix of vectors (lanes = channels). Shared by the conv2d family's cpu_winograd kind and the
// CPU conv plan's Winograd path (conv_cpu_winograd.hpp).
namespace ktune::kernels::winograd {

template <int M>
struct Tables;
template <>
struct Tables<2> {
  static constexpr float BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static constexpr float G[4][3] = {{1, 0, 0}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0, 0, 1}};
  static constexpr float AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
};
template <>
struct Tables<4> {
  static constexpr float BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                     {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                     {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static constexpr float G[6][3] = {{1.f / 4, 0, 0},
                                    {-1.f / 6, -1.f / 6, -1.f / 6},
                                    {-1.f / 6, 1.f / 6, -1.f / 6},
                                    {1.f / 24, 1.f / 12, 1.f / 6},
                                    {1.f / 24, -1.f / 12, 1.f / 6},
                                    {0, 0, 1}};
  static constexpr float AT[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
};

// out[l][i] = Σ_a t[i][a] x[a][l]: T x, transposed, for an I×J matrix T and a J×L matrix x of
// vectors V (GCC vector extensions); zero entries of the constant T are skipped (resolved at
// compile time once unrolled).
template <int I, int J, int L, class V>
inline void times_transposed(const float (&t)[I][J], const V (&x)[J][L], V (&out)[L][I]) {
#pragma GCC unroll 8
  for (int i = 0; i < I; ++i)
#pragma GCC unroll 8
    for (int l = 0; l < L; ++l) {
      V acc = {};
#pragma GCC unroll 8
      for (int a = 0; a < J; ++a)
        if (t[i][a] != 0) acc += t[i][a] * x[a][l];
      out[l][i] = acc;
    }
}

// out = T x T^T for an I×J matrix T and a J×J matrix x: (T (T x)^T)^T = T x T^T.
template <int I, int J, class V>
inline void sandwich(const float (&t)[I][J], const V (&x)[J][J], V (&out)[I][I]) {
  V tmp[J][I];
  times_transposed<I, J, J>(t, x, tmp);
  times_transposed<I, J, I>(t, tmp, out);
}

}  // namespace ktune::kernels::winograd

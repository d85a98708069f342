// Prints, per problem line "transa transb m n k batch" on stdin, the picks of two selector
// headers (NEW, OLD) by config name.
#include <cstdio>
#define ktune_selector sel_new
#include NEW_HEADER
#undef ktune_selector
#define ktune_selector sel_old
#include OLD_HEADER
#undef ktune_selector
int main() {
  long long ta, tb, m, n, k, b;
  while (std::scanf("%lld %lld %lld %lld %lld %lld", &ta, &tb, &m, &n, &k, &b) == 6) {
    const char* a = sel_new::config_name(sel_new::select(ta, tb, m, n, k, b, 2));
    const char* o = sel_old::config_name(sel_old::select(ta, tb, m, n, k, b, 2));
    std::printf("%lld,%lld,%lld,%lld,%lld,%lld,%s,%s\n", ta, tb, m, n, k, b, a, o);
  }
}

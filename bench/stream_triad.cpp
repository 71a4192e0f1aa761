// STREAM-like triad a = b + s*c on one core: the memory bandwidth the model benchmarks compare to.
// Prints JSON: bytes moved per element (with write-allocate) and the best and median bandwidth.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 40'000'000;  // 3 x 320 MB
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 10;
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const double s = 3.0;
  std::vector<double> gbs;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const auto t1 = std::chrono::steady_clock::now();
    // 2 reads + 1 write + 1 write-allocate read = 32 bytes per element.
    gbs.push_back(32.0 * static_cast<double>(n) / std::chrono::duration<double>(t1 - t0).count() / 1e9);
  }
  std::sort(gbs.begin(), gbs.end());
  if (a[n / 2] != 7.0) return 1;  // keeps the loop alive and checks it
  std::printf("{\"elements\": %zu, \"bytes_per_element\": 32, \"best_gb_per_s\": %.3f, \"median_gb_per_s\": %.3f}\n", n,
              gbs.back(), gbs[gbs.size() / 2]);
  return 0;
}

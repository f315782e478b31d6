// Checks the per-token row passes of logits-capture.cpp against plain reference loops on rows built to
// hit their edge cases: every size from 1 to 70 (tails of the 16-entry blocks) and real vocabulary sizes,
// ties (the first largest entry wins), the maximum first or last, all-equal rows, signed zeros, NaN and
// ±inf. test/native/row-scan.test.ts compiles it twice: as shipped (the AVX2 clone on such a CPU) and
// with the clones removed (the portable code). Prints "cases=N fails=F".
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "logits-capture.h"

using namespace tessera;

static int referenceArgMax(const std::vector<float>& row) {
  int best = 0;
  for (size_t index = 1; index < row.size(); index++)
    if (row[index] > row[best]) best = static_cast<int>(index);
  return best;
}

static bool referenceFinite(const std::vector<float>& row) {
  for (float value : row)
    if (!std::isfinite(value)) return false;
  return true;
}

static double referenceLogSumExp(const std::vector<float>& row) {
  double maximum = -INFINITY;
  for (float value : row) maximum = std::max(maximum, static_cast<double>(value));
  double sum = 0;
  for (float value : row) sum += std::exp(static_cast<double>(value) - maximum);
  return maximum + std::log(sum);
}

int main() {
  std::mt19937 random(7);
  std::normal_distribution<float> normal(0, 3);
  std::vector<int> sizes;
  for (int size = 1; size <= 70; size++) sizes.push_back(size);
  for (int size : {354, 355, 1000, 32000, 32001, 32003, 151936}) sizes.push_back(size);
  int cases = 0;
  int fails = 0;
  for (int size : sizes) {
    for (int trial = 0; trial < 40; trial++) {
      std::vector<float> row(static_cast<size_t>(size));
      for (float& value : row) value = normal(random);
      const int kind = trial % 10;
      const auto at = [&] { return static_cast<size_t>(random() % static_cast<unsigned>(size)); };
      if (kind == 1) row[at()] = row[at()] = row[at()] = 100;  // ties at random places
      if (kind == 2) row[0] = 1000;
      if (kind == 3) row[static_cast<size_t>(size - 1)] = 1000;
      if (kind == 4) for (float& value : row) value = 5;
      if (kind == 5) row[at()] = NAN;
      if (kind == 6) row[at()] = -INFINITY;
      if (kind == 7) row[at()] = INFINITY;
      if (kind == 8) {
        row[static_cast<size_t>(size - 1)] = 50;
        if (size > 1) row[static_cast<size_t>(size - 2)] = 50;
      }
      if (kind == 9) {
        for (float& value : row) value = -0.0f;
        if (size > 2) row[2] = 0.0f;
      }
      cases++;
      const RowScan scan = scanRow(row.data(), size);
      const bool finite = referenceFinite(row);
      bool ok = scan.finite == finite && allFinite(row.data(), size) == finite;
      if (finite) {
        const int expected = referenceArgMax(row);
        ok = ok && scan.argmax == expected && scan.maximum == row[static_cast<size_t>(expected)] &&
             argMaxDense(row.data(), size) == expected;
        const double reference = referenceLogSumExp(row);
        const double got = logSumExpWithMaximum(row.data(), size, scan.maximum);
        ok = ok && std::fabs(got - reference) <= 1e-5 * std::max(1.0, std::fabs(reference));
      }
      if (!ok) {
        fails++;
        if (fails <= 10) std::printf("FAIL size=%d kind=%d finite=%d/%d argmax=%d\n", size, kind, scan.finite, finite, scan.argmax);
      }
    }
  }
  std::printf("cases=%d fails=%d\n", cases, fails);
  return fails == 0 ? 0 : 1;
}

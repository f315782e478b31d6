// Checks the per-token row passes of logits-capture.cpp against plain reference loops:
// - scanRow and summarizeRow on rows built to hit their edge cases: every size from 1 to 70 (tails of the
//   32-entry blocks), sizes around the AVX-512 form's 128-entry groups and real vocabulary sizes, ties (the
//   first largest entry wins), the maximum first or last, all-equal rows, signed zeros, NaN and ±inf, huge
//   finite logits (summarizeRow's log-sum-exp) and denormal ones (the AVX-512 form flushes denormal
//   results, and restores the thread's MXCSR);
// - topKDense against a sort of the same rows (without NaN, which its callers rule out), plain, with most
//   entries -inf and with all but three -inf, for k around the block size, the block count and the row size.
// test/native/row-scan.test.ts compiles it as shipped (the clone the CPU gets), with the clones removed
// (the portable code) and as the x86-64-v3 clone alone. Prints the case and failure counts.
#include <algorithm>
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

// The entries topKDense ranks, best first: -inf never counts, ties go to the lower id.
// logSumExpDense's value against the reference on a row without NaN or +inf: -inf entries count as
// nothing, so a row with them has a log-sum-exp too (-inf when all are -inf).
static bool denseMatchesReference(const std::vector<float>& row, double dense) {
  const bool allNegativeInfinity = std::all_of(row.begin(), row.end(), [](float value) { return value == -INFINITY; });
  const double reference = allNegativeInfinity ? -INFINITY : referenceLogSumExp(row);
  return reference == -INFINITY ? dense == -INFINITY
                                : std::fabs(dense - reference) <= 1e-5 * std::max(1.0, std::fabs(reference));
}

// The AVX-512 form sets MXCSR's flush-to-zero bit for its pass and must restore it. The default control
// bits (flush-to-zero off) go in before a call, and the control bits alone are compared after it: the status
// flags (the low six) are sticky and any arithmetic sets them.
static constexpr unsigned int defaultControl = 0x1f80u;
static void setDefaultControl() {
#if defined(__x86_64__)
  __builtin_ia32_ldmxcsr(defaultControl);
#endif
}
static bool controlAsBefore() {
#if defined(__x86_64__)
  return (__builtin_ia32_stmxcsr() & ~0x3fu) == defaultControl;
#else
  return true;
#endif
}

static std::vector<std::pair<float, int32_t>> referenceRanking(const std::vector<float>& row) {
  std::vector<std::pair<float, int32_t>> entries;
  for (size_t index = 0; index < row.size(); index++)
    if (row[index] != -INFINITY) entries.emplace_back(row[index], static_cast<int32_t>(index));
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return entries;
}

// topKDense on a row (never NaN: its callers check the row first) for k around its block size (32), the
// number of blocks and the row's size, and again with most entries -inf (a processed row after a cut).
// Fewer than k ranked entries pad with -1 / -inf.
static int checkTopK(std::vector<float> row, std::mt19937& random, int& cases) {
  int fails = 0;
  const int size = static_cast<int>(row.size());
  for (int pass = 0; pass < 3; pass++) {
    if (pass == 1) {
      for (float& value : row)
        if (random() % 10 != 0) value = -INFINITY;
    }
    // Three finite entries at most (a grammar's processed row): fewer blocks with a finite maximum than k,
    // so the threshold is -inf.
    if (pass == 2) {
      const size_t kept[3] = {random() % row.size(), random() % row.size(), random() % row.size()};
      std::vector<float> few(row.size(), -INFINITY);
      for (size_t index : kept) few[index] = static_cast<float>(random() % 7) - 3.0f;
      row = few;
    }
    const auto ranking = referenceRanking(row);
    // k up to 64 takes the AVX-512 form when the row has 8·ceil(k/8) blocks: each count of its eight-lane
    // group vectors (k 9, 40/41, 56/57, 63/64), and 65, past it.
    for (int k : {1, 2, 9, 20, 31, 32, 33, 40, 41, 56, 57, 63, 64, 65, size / 32, size / 32 + 1, size, size + 3}) {
      if (k < 1) continue;
      cases++;
      TopKCapture got;
      topKDense(row.data(), size, k, got);
      std::vector<int32_t> ids(static_cast<size_t>(k), -1);
      std::vector<float> logits(static_cast<size_t>(k), -INFINITY);
      for (size_t index = 0; index < ranking.size() && index < static_cast<size_t>(k); index++) {
        ids[index] = ranking[index].second;
        logits[index] = ranking[index].first;
      }
      if (got.ids != ids || got.logits != logits) {
        fails++;
        if (fails <= 10) std::printf("TOPK FAIL size=%d k=%d pass=%d\n", size, k, pass);
      }
    }
  }
  return fails;
}

int main() {
  std::mt19937 random(7);
  std::normal_distribution<float> normal(0, 3);
  std::vector<int> sizes;
  for (int size = 1; size <= 70; size++) sizes.push_back(size);
  // Around summarizeRow's AVX-512 groups of four blocks (128 entries): whole groups, groups and a few blocks,
  // blocks and a tail. And around topKDense's AVX-512 dispatch: 40 and 64 blocks (k up to 40 and 64), one
  // block fewer, and a tail.
  for (int size : {96, 127, 128, 129, 160, 255, 256, 257, 354, 355, 511, 512, 513, 1000, 1279, 1280, 1285, 2047, 2048,
                   2053, 32000, 32001, 32003, 151936})
    sizes.push_back(size);
  int cases = 0;
  int fails = 0;
  int topKCases = 0;
  int topKFails = 0;
  int summaryCases = 0;
  int summaryFails = 0;
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
      // summarizeRow: scanRow and the log-sum-exp in one pass, and block maxima topKDense can use.
      std::vector<float> blockMaxima;
      const RowSummary summary = summarizeRow(row.data(), size, blockMaxima);
      {
        const bool finiteRow = referenceFinite(row);
        bool ok = summary.finite == finiteRow && blockMaxima.size() == static_cast<size_t>(size / 32);
        if (ok && finiteRow) {
          const int expected = referenceArgMax(row);
          const double reference = referenceLogSumExp(row);
          ok = summary.argmax == expected && summary.maximum == row[static_cast<size_t>(expected)] &&
               std::fabs(summary.logSumExp - reference) <= 1e-5 * std::max(1.0, std::fabs(reference));
          TopKCapture fromMaxima;
          topKDense(row.data(), size, 20, fromMaxima, &blockMaxima);
          TopKCapture alone;
          topKDense(row.data(), size, 20, alone);
          ok = ok && fromMaxima.ids == alone.ids && fromMaxima.logits == alone.logits;
        }
        summaryCases++;
        if (!ok) {
          summaryFails++;
          if (summaryFails <= 10) std::printf("SUMMARY FAIL size=%d kind=%d finite=%d/%d argmax=%d\n", size, kind, summary.finite, finiteRow, summary.argmax);
        }
      }
      if (kind != 5 && trial < (size < 354 ? 20 : 10)) topKFails += checkTopK(row, random, topKCases);
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
      // logSumExpDense (temperature draws, prompt logprobs): -inf entries count as nothing, so a row with
      // them has a log-sum-exp too.
      const bool anyNaN = std::any_of(row.begin(), row.end(), [](float value) { return std::isnan(value); });
      const bool anyPositiveInfinity = std::any_of(row.begin(), row.end(), [](float value) { return value == INFINITY; });
      if (!anyNaN && !anyPositiveInfinity) ok = ok && denseMatchesReference(row, logSumExpDense(row.data(), size));
      if (!ok) {
        fails++;
        if (fails <= 10) std::printf("FAIL size=%d kind=%d finite=%d/%d argmax=%d\n", size, kind, scan.finite, finite, scan.argmax);
      }
    }
  }
  // Huge finite logits (a broken but finite model): the log-sum-exp stays finite and right. A fused
  // multiply-add form of (x - maximum) × log2 e gave inf or NaN from ~1.5e9 on, and NaN for a block at -3e38.
  for (int size : {40, 354, 32000, 32001}) {
    for (int trial = 0; trial < 8; trial++) {
      std::vector<float> row(static_cast<size_t>(size));
      for (float& value : row) value = normal(random);
      if (trial == 0) {
        for (float& value : row) value = 0.0f;
        row[static_cast<size_t>(size / 3)] = 1.60322714e9f;
      } else if (trial == 1) {
        for (float& value : row) value = 0.0f;
        for (int index = 0; index < 32 && index < size; index++) row[static_cast<size_t>(index)] = -3e38f;
      } else if (trial == 2) {
        for (float& value : row) value = -3e38f;
        row[static_cast<size_t>(size - 1)] = 3e38f;
      } else {
        const float scale = trial == 3 ? 1e9f : trial == 4 ? 1e10f : trial == 5 ? 1e20f : trial == 6 ? 1e30f : 1e37f;
        for (float& value : row) value *= scale;
      }
      const double reference = referenceLogSumExp(row);
      const double tolerance = 1e-5 * std::max(1.0, std::fabs(reference));
      std::vector<float> blockMaxima;
      const RowSummary summary = summarizeRow(row.data(), size, blockMaxima);
      const RowScan scan = scanRow(row.data(), size);
      const double alone = logSumExpWithMaximum(row.data(), size, scan.maximum);
      summaryCases++;
      if (!summary.finite || !(std::fabs(summary.logSumExp - reference) <= tolerance) ||
          !(std::fabs(alone - reference) <= tolerance)) {
        summaryFails++;
        if (summaryFails <= 10)
          std::printf("HUGE FAIL size=%d trial=%d summary=%g alone=%g reference=%g\n", size, trial,
                      static_cast<double>(summary.logSumExp), alone, reference);
      }
    }
  }
  // logSumExpDense on rows with many -inf entries (a model's raw prompt row): whole leading groups of them,
  // only the tail, all but one entry (in a block or the tail), every other entry, all; and NaN or +inf
  // among them, or alone among -inf (NaN for both: maximumOf passes over NaN, and a row of NaN and -inf
  // alone gave -inf). The AVX-512 form gives all of them to the portable passes, with the thread's MXCSR as
  // before (the rows of 4,096 entries and more cover where the pass gives up early).
  for (int size : {31, 33, 200, 4096, 4100, 32000, 32003}) {
    for (int pattern = 0; pattern < 10; pattern++) {
      for (int trial = 0; trial < 4; trial++) {
        std::vector<float> row(static_cast<size_t>(size));
        for (float& value : row) value = normal(random);
        const size_t count = row.size();
        const auto at = [&] { return static_cast<size_t>(random() % static_cast<unsigned>(size)); };
        if (pattern == 0)
          for (size_t index = 0; index < std::min<size_t>(count, 4096); index++) row[index] = -INFINITY;
        if (pattern == 1)
          for (size_t index = count / 32 * 32; index < count; index++) row[index] = -INFINITY;
        if (pattern == 2 || pattern == 3) {
          const size_t kept = pattern == 2 ? at() : count - 1;
          for (size_t index = 0; index < count; index++)
            if (index != kept) row[index] = -INFINITY;
        }
        if (pattern == 4)
          for (size_t index = 0; index < count; index += 2) row[index] = -INFINITY;
        if (pattern == 5) std::fill(row.begin(), row.end(), -INFINITY);
        if (pattern == 6 || pattern == 7) {
          for (size_t index = 0; index < count; index++)
            if (random() % 4 != 0) row[index] = -INFINITY;
          row[at()] = pattern == 6 ? NAN : INFINITY;
        }
        if (pattern == 8 || pattern == 9) {
          std::fill(row.begin(), row.end(), -INFINITY);
          row[at()] = pattern == 8 ? NAN : INFINITY;
        }
        setDefaultControl();
        const double dense = logSumExpDense(row.data(), size);
        // Patterns 6 to 9 hold NaN or +inf.
        bool ok = pattern >= 6 ? std::isnan(dense) : denseMatchesReference(row, dense);
        // summarizeRow calls each of these rows not finite (but for a tail-only pattern without a tail).
        std::vector<float> blockMaxima;
        ok = ok && summarizeRow(row.data(), size, blockMaxima).finite == referenceFinite(row);
        ok = ok && controlAsBefore();
        summaryCases++;
        if (!ok) {
          summaryFails++;
          if (summaryFails <= 10) std::printf("MINUS-INF FAIL size=%d pattern=%d dense=%g\n", size, pattern, dense);
        }
      }
    }
  }
  // Denormal logits: the AVX-512 form flushes denormal results to zero during its pass (MXCSR's FTZ bit),
  // never the inputs, so a row whose largest entry is a denormal keeps it as maximum and arg-max; and the
  // thread's MXCSR is as it was afterwards.
  for (int size : {40, 354, 32000}) {
    for (int trial = 0; trial < 8; trial++) {
      std::vector<float> row(static_cast<size_t>(size), trial % 2 == 0 ? 0.0f : -1e-39f);
      const size_t at = random() % static_cast<unsigned>(size);
      row[at] = 1e-40f;
      setDefaultControl();
      std::vector<float> blockMaxima;
      const RowSummary summary = summarizeRow(row.data(), size, blockMaxima);
      const float dense = logSumExpDense(row.data(), size);
      bool ok = summary.finite && summary.argmax == static_cast<int32_t>(at) && summary.maximum == 1e-40f &&
                std::fabs(summary.logSumExp - std::log(static_cast<double>(size))) <= 1e-5 * std::log(static_cast<double>(size)) &&
                std::fabs(dense - std::log(static_cast<double>(size))) <= 1e-5 * std::log(static_cast<double>(size));
      ok = ok && controlAsBefore();
      summaryCases++;
      if (!ok) {
        summaryFails++;
        if (summaryFails <= 10) std::printf("DENORMAL FAIL size=%d trial=%d argmax=%d\n", size, trial, summary.argmax);
      }
    }
  }
  std::printf("cases=%d fails=%d topk_cases=%d topk_fails=%d summary_cases=%d summary_fails=%d form=%s\n", cases,
              fails, topKCases, topKFails, summaryCases, summaryFails, rowPassForm());
  return fails == 0 && topKFails == 0 && summaryFails == 0 ? 0 : 1;
}

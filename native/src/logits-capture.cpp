#include "logits-capture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

// The log-sum-exp pass runs once per token whenever a logprob, a capture or a draw needs it. On x86-64
// Linux with GCC it is also compiled for x86-64-v3 (AVX2 + FMA: 8 lanes, fused multiply-adds in the
// polynomial), chosen once at load time through an ifunc: ~35 → ~18 µs per token on a 32k row here
// (docs/native.md). Elsewhere the portable 8-lane code is all there is.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define TESSERA_ROW_PASS __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TESSERA_ROW_PASS
#endif

namespace tessera {
namespace {
constexpr float negativeInfinity = -std::numeric_limits<float>::infinity();

// exp(x) for x <= 0 (NaN-free input), four lanes at a time with GCC/Clang vector extensions (SSE2 or
// NEON, no -ffast-math, which would break the -inf handling elsewhere): 2^(x log2 e) split into an
// integer power built in the exponent bits and a degree-6 polynomial for 2^f, f in [-0.5, 0.5].
// Relative error ~2e-7; inputs below -87 (including -inf) give ~1e-38 instead of 0, which no
// log-sum-exp over a vocabulary can notice.
typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));

// Eight lanes for the log-sum-exp pass: one AVX register in its x86-64-v3 clone (below), two SSE ones
// otherwise. Always inlined, and by reference, so no 32-byte vector is passed by value across a call
// (whose ABI depends on AVX: -Wpsabi).
typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int8 __attribute__((vector_size(32)));

template <typename Floats, typename Ints>
__attribute__((always_inline)) inline void exponentOfNonPositiveLanes(const Floats& input, Floats& out) {
  const Floats lowest = Floats{} - 87.0f;
  const Floats x = input < lowest ? lowest : input;
  const Floats t = x * 1.44269504088896341f;
  const Ints whole = -__builtin_convertvector(0.5f - t, Ints);  // round(t) for t <= 0
  const Floats f = t - __builtin_convertvector(whole, Floats);
  const Floats power =
      1.0f + f * (0.693147182f + f * (0.240226507f + f * (0.0555041086f + f * (0.00961812911f + f * (0.00133335581f + f * 0.000154035304f)))));
  const Ints bits = (whole + 127) << 23;
  Floats scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  out = power * scale;
}

inline Float4 exponentOfNonPositive(Float4 x) {
  Float4 result;
  exponentOfNonPositiveLanes<Float4, Int4>(x, result);
  return result;
}

inline float exponentOfNonPositive(float x) {
  const Float4 lanes = {x, 0.0f, 0.0f, 0.0f};
  return exponentOfNonPositive(lanes)[0];
}

inline Float4 load4(const float* values) {
  Float4 loaded;
  std::memcpy(&loaded, values, sizeof(loaded));
  return loaded;
}

inline float maximumOf(const float* row, int32_t size) {
  Float4 maxima = {negativeInfinity, negativeInfinity, negativeInfinity, negativeInfinity};
  int32_t index = 0;
  for (; index + 4 <= size; index += 4) {
    const Float4 values = load4(row + index);
    maxima = values > maxima ? values : maxima;
  }
  float maximum = std::max(std::max(maxima[0], maxima[1]), std::max(maxima[2], maxima[3]));
  for (; index < size; index++) maximum = std::max(maximum, row[index]);
  return maximum;
}

// A min-heap of (logit, id) holding the best k seen so far.
using HeapEntries = std::vector<std::pair<float, int32_t>>;

// One buffer per thread, kept: a capture runs on every token, and a vector of its own was an allocation per
// token and capture. Heaps never overlap on a thread (each is written out before the next is made).
HeapEntries& heapScratch() {
  thread_local HeapEntries entries;
  return entries;
}

class TopKHeap {
 public:
  explicit TopKHeap(int32_t k) : k_(k), entries_(heapScratch()) {
    entries_.clear();
    entries_.reserve(static_cast<size_t>(std::max(k, 0)));
  }
  void offer(float logit, int32_t id) {
    if (k_ <= 0 || logit == negativeInfinity || std::isnan(logit)) return;
    if (static_cast<int32_t>(entries_.size()) < k_) {
      entries_.emplace_back(logit, id);
      std::push_heap(entries_.begin(), entries_.end(), greater);
    } else if (logit > entries_.front().first) {
      std::pop_heap(entries_.begin(), entries_.end(), greater);
      entries_.back() = {logit, id};
      std::push_heap(entries_.begin(), entries_.end(), greater);
    }
  }
  bool full() const { return static_cast<int32_t>(entries_.size()) >= k_; }
  float threshold() const { return entries_.front().first; }
  void write(TopKCapture& out) {
    std::sort(entries_.begin(), entries_.end(), greater);
    out.ids.assign(static_cast<size_t>(k_), -1);
    out.logits.assign(static_cast<size_t>(k_), negativeInfinity);
    for (size_t i = 0; i < entries_.size(); i++) {
      out.logits[i] = entries_[i].first;
      out.ids[i] = entries_[i].second;
    }
  }

 private:
  static bool greater(const std::pair<float, int32_t>& a, const std::pair<float, int32_t>& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }
  int32_t k_;
  HeapEntries& entries_;
};
}  // namespace

float logSumExpDense(const float* row, int32_t size) { return logSumExpWithMaximum(row, size, maximumOf(row, size)); }

TESSERA_ROW_PASS float logSumExpWithMaximum(const float* row, int32_t size, float maximum) {
  if (maximum == negativeInfinity) return negativeInfinity;
  Float8 first = {};
  Float8 second = {};
  int32_t index = 0;
  for (; index + 16 <= size; index += 16) {
    Float8 a;
    Float8 b;
    std::memcpy(&a, row + index, sizeof(a));
    std::memcpy(&b, row + index + 8, sizeof(b));
    Float8 exponentials;
    exponentOfNonPositiveLanes<Float8, Int8>(a - maximum, exponentials);
    first += exponentials;
    exponentOfNonPositiveLanes<Float8, Int8>(b - maximum, exponentials);
    second += exponentials;
  }
  double sum = 0;
  for (int lane = 0; lane < 8; lane++) sum += static_cast<double>(first[lane]) + second[lane];
  for (; index < size; index++) sum += exponentOfNonPositive(row[index] - maximum);
  return maximum + static_cast<float>(std::log(sum));
}

float logSumExpCandidates(const llama_token_data_array& candidates) {
  float maximum = negativeInfinity;
  bool broken = false;  // NaN or +inf: checked in the pass that finds the maximum, not in one of its own
  for (size_t i = 0; i < candidates.size; i++) {
    const float logit = candidates.data[i].logit;
    broken |= std::isnan(logit) || logit == std::numeric_limits<float>::infinity();
    maximum = std::max(maximum, logit);
  }
  if (broken) return std::numeric_limits<float>::quiet_NaN();
  if (maximum == negativeInfinity) return negativeInfinity;
  Float4 sums = {0, 0, 0, 0};
  size_t index = 0;
  for (; index + 4 <= candidates.size; index += 4) {
    const llama_token_data* data = candidates.data + index;
    const Float4 values = {data[0].logit, data[1].logit, data[2].logit, data[3].logit};
    sums += exponentOfNonPositive(values - maximum);
  }
  double sum = static_cast<double>(sums[0]) + sums[1] + sums[2] + sums[3];
  for (; index < candidates.size; index++) sum += exponentOfNonPositive(candidates.data[index].logit - maximum);
  return maximum + static_cast<float>(std::log(sum));
}

// Once the heap is full, whole blocks below its smallest entry are skipped: one compare of a 32-entry
// block's lane-wise maximum (four 8-lane loads) against the threshold. This check is the pass's cost
// (the heap takes a few hundred offers per row); 16-entry blocks with 4-lane maxima made a top-20 capture
// of raw and processed logits cost ~5% of decode on `tiny`.
TESSERA_ROW_PASS void topKDense(const float* row, int32_t size, int32_t k, TopKCapture& out) {
  TopKHeap heap(k);
  constexpr int32_t block = 32;
  int32_t index = 0;
  for (; index + block <= size; index += block) {
    if (heap.full()) {
      Float8 a;
      Float8 b;
      Float8 c;
      Float8 d;
      std::memcpy(&a, row + index, sizeof(a));
      std::memcpy(&b, row + index + 8, sizeof(b));
      std::memcpy(&c, row + index + 16, sizeof(c));
      std::memcpy(&d, row + index + 24, sizeof(d));
      const Float8 ab = a > b ? a : b;
      const Float8 cd = c > d ? c : d;
      const Float8 maxima = ab > cd ? ab : cd;
      const float threshold = heap.threshold();
      // NaN never reaches here (the row was checked finite); -inf entries are never offered.
      bool any = false;
      for (int lane = 0; lane < 8; lane++) any |= maxima[lane] > threshold;
      if (!any) continue;
    }
    for (int32_t offset = 0; offset < block; offset++) heap.offer(row[index + offset], index + offset);
  }
  for (; index < size; index++) heap.offer(row[index], index);
  heap.write(out);
}

void topKCandidates(const llama_token_data_array& candidates, int32_t k, TopKCapture& out) {
  TopKHeap heap(k);
  constexpr size_t block = 16;
  size_t index = 0;
  for (; index + block <= candidates.size; index += block) {
    const llama_token_data* data = candidates.data + index;
    if (heap.full()) {
      float blockMaximum = data[0].logit;
      for (size_t offset = 1; offset < block; offset++) blockMaximum = std::max(blockMaximum, data[offset].logit);
      if (blockMaximum <= heap.threshold()) continue;
    }
    for (size_t offset = 0; offset < block; offset++) heap.offer(data[offset].logit, data[offset].id);
  }
  for (; index < candidates.size; index++) heap.offer(candidates.data[index].logit, candidates.data[index].id);
  heap.write(out);
}

bool allFinite(const float* row, int32_t size) {
  // x - x is 0 for finite x and NaN for NaN or +-inf; NaN survives the sum.
  Float4 accumulated = {0, 0, 0, 0};
  int32_t index = 0;
  for (; index + 4 <= size; index += 4) {
    const Float4 values = load4(row + index);
    accumulated += values - values;
  }
  float total = accumulated[0] + accumulated[1] + accumulated[2] + accumulated[3];
  for (; index < size; index++) total += row[index] - row[index];
  return total == 0.0f;
}

// Eight-lane sets (AVX2 in the x86-64-v3 clone; two SSE halves in the default one): the pass runs on every
// generated token, so its width shows in decode speed on small models.
TESSERA_ROW_PASS RowScan scanRow(const float* row, int32_t size) {
  // One pass instead of three (allFinite, then the maximum twice: for arg-max and for log-sum-exp).
  // Two independent sets of lanes, so the compare-and-select chains overlap. Each lane keeps the first
  // index holding its maximum (strictly greater replaces); merging takes the lowest index among equal
  // maxima, so the result is the first largest entry, as argMaxDense. x - x is 0 for finite x and NaN
  // for NaN or +-inf, and NaN survives the sum, exactly as in allFinite.
  Float8 lowest;
  for (int lane = 0; lane < 8; lane++) lowest[lane] = negativeInfinity;
  Float8 check = {};
  Float8 maximaA = lowest;
  Float8 maximaB = lowest;
  Int8 bestA = {0, 1, 2, 3, 4, 5, 6, 7};
  Int8 bestB = {8, 9, 10, 11, 12, 13, 14, 15};
  Int8 positionsA = bestA;
  Int8 positionsB = bestB;
  const Int8 step = {16, 16, 16, 16, 16, 16, 16, 16};
  int32_t index = 0;
  for (; index + 16 <= size; index += 16) {
    Float8 a;
    Float8 b;
    std::memcpy(&a, row + index, sizeof(a));
    std::memcpy(&b, row + index + 8, sizeof(b));
    check += (a - a) + (b - b);
    const Int8 greaterA = a > maximaA;
    const Int8 greaterB = b > maximaB;
    maximaA = greaterA ? a : maximaA;
    maximaB = greaterB ? b : maximaB;
    bestA = greaterA ? positionsA : bestA;
    bestB = greaterB ? positionsB : bestB;
    positionsA += step;
    positionsB += step;
  }
  RowScan scan{true, negativeInfinity, 0};
  bool found = false;
  auto offer = [&scan, &found](float value, int32_t at) {
    if (!found || value > scan.maximum || (value == scan.maximum && at < scan.argmax)) {
      scan.maximum = value;
      scan.argmax = at;
      found = true;
    }
  };
  float total = 0.0f;
  if (index > 0) {
    for (int lane = 0; lane < 8; lane++) {
      offer(maximaA[lane], bestA[lane]);
      offer(maximaB[lane], bestB[lane]);
      total += check[lane];
    }
  }
  for (; index < size; index++) {
    total += row[index] - row[index];
    offer(row[index], index);
  }
  scan.finite = total == 0.0f;
  return scan;
}

int32_t argMaxDense(const float* row, int32_t size) {
  const float maximum = maximumOf(row, size);
  for (int32_t index = 0; index < size; index++) {
    if (row[index] == maximum) return index;
  }
  return 0;
}

void divideDense(const float* row, int32_t size, float temperature, float* out) {
  for (int32_t index = 0; index < size; index++) out[index] = row[index] / temperature;
}

int32_t drawFromDense(const float* logits, int32_t size, float logSumExp, double uniform) {
  // Walks the cumulative distribution four tokens at a time; only the crossing group is walked singly.
  double cumulative = 0;
  int32_t index = 0;
  int32_t lastPossible = -1;
  for (; index + 4 <= size; index += 4) {
    const Float4 probabilities = exponentOfNonPositive(load4(logits + index) - logSumExp);
    const double group = static_cast<double>(probabilities[0]) + probabilities[1] + probabilities[2] + probabilities[3];
    if (cumulative + group > uniform) {
      for (int lane = 0; lane < 4; lane++) {
        cumulative += probabilities[lane];
        if (logits[index + lane] > negativeInfinity) lastPossible = index + lane;
        if (cumulative > uniform) return index + lane;
      }
    }
    cumulative += group;
    if (group > 0) lastPossible = index + 3;
  }
  for (; index < size; index++) {
    cumulative += exponentOfNonPositive(logits[index] - logSumExp);
    if (logits[index] > negativeInfinity) lastPossible = index;
    if (cumulative > uniform) return index;
  }
  // The probabilities summed to a hair under the draw (rounding): take the last possible token.
  return lastPossible >= 0 ? lastPossible : argMaxDense(logits, size);
}

void scatterCandidates(const llama_token_data_array& candidates, float* out, int32_t vocabSize) {
  std::fill(out, out + vocabSize, negativeInfinity);
  for (size_t i = 0; i < candidates.size; i++) {
    const int32_t id = candidates.data[i].id;
    if (id >= 0 && id < vocabSize) out[id] = candidates.data[i].logit;
  }
}
}  // namespace tessera

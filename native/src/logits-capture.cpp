#include "logits-capture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace tessera {
namespace {
constexpr float negativeInfinity = -std::numeric_limits<float>::infinity();

// exp(x) for x <= 0 (NaN-free input), branch-free so loops over it vectorize: 2^(x log2 e) split into
// an integer power (built in the exponent bits) and a degree-6 polynomial for 2^f, f in [-0.5, 0.5].
// Relative error ~2e-7; inputs below -87 (including -inf) give ~1e-38 instead of 0, which no
// log-sum-exp over a vocabulary can notice.
inline float exponentOfNonPositive(float x) {
  x = x < -87.0f ? -87.0f : x;
  const float t = x * 1.44269504088896341f;
  const int32_t whole = -static_cast<int32_t>(0.5f - t);  // round(t) for t <= 0
  const float f = t - static_cast<float>(whole);
  const float power =
      1.0f + f * (0.693147182f + f * (0.240226507f + f * (0.0555041086f + f * (0.00961812911f + f * (0.00133335581f + f * 0.000154035304f)))));
  const int32_t bits = (whole + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return power * scale;
}

// A min-heap of (logit, id) holding the best k seen so far.
class TopKHeap {
 public:
  explicit TopKHeap(int32_t k) : k_(k) { entries_.reserve(static_cast<size_t>(k)); }
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
  std::vector<std::pair<float, int32_t>> entries_;
};
}  // namespace

float logSumExpDense(const float* row, int32_t size) {
  // Eight independent lanes so the compiler vectorizes without -ffast-math (which would break the
  // -inf handling everywhere else).
  constexpr int32_t lanes = 8;
  float maxima[lanes];
  for (int32_t lane = 0; lane < lanes; lane++) maxima[lane] = negativeInfinity;
  int32_t index = 0;
  for (; index + lanes <= size; index += lanes) {
    for (int32_t lane = 0; lane < lanes; lane++) {
      const float value = row[index + lane];
      maxima[lane] = value > maxima[lane] ? value : maxima[lane];
    }
  }
  float maximum = negativeInfinity;
  for (int32_t lane = 0; lane < lanes; lane++) maximum = std::max(maximum, maxima[lane]);
  for (int32_t rest = index; rest < size; rest++) maximum = std::max(maximum, row[rest]);
  if (maximum == negativeInfinity) return negativeInfinity;

  float sums[lanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  index = 0;
  for (; index + lanes <= size; index += lanes) {
    for (int32_t lane = 0; lane < lanes; lane++) sums[lane] += exponentOfNonPositive(row[index + lane] - maximum);
  }
  double sum = 0;
  for (int32_t lane = 0; lane < lanes; lane++) sum += sums[lane];
  for (int32_t rest = index; rest < size; rest++) sum += exponentOfNonPositive(row[rest] - maximum);
  return maximum + static_cast<float>(std::log(sum));
}

float logSumExpCandidates(const llama_token_data_array& candidates) {
  float maximum = negativeInfinity;
  for (size_t i = 0; i < candidates.size; i++) maximum = std::max(maximum, candidates.data[i].logit);
  if (maximum == negativeInfinity) return negativeInfinity;
  float sums[4] = {0, 0, 0, 0};
  size_t index = 0;
  for (; index + 4 <= candidates.size; index += 4) {
    for (size_t lane = 0; lane < 4; lane++) sums[lane] += exponentOfNonPositive(candidates.data[index + lane].logit - maximum);
  }
  double sum = static_cast<double>(sums[0]) + sums[1] + sums[2] + sums[3];
  for (; index < candidates.size; index++) sum += exponentOfNonPositive(candidates.data[index].logit - maximum);
  return maximum + static_cast<float>(std::log(sum));
}

void topKDense(const float* row, int32_t size, int32_t k, TopKCapture& out) {
  TopKHeap heap(k);
  for (int32_t i = 0; i < size; i++) heap.offer(row[i], i);
  heap.write(out);
}

void topKCandidates(const llama_token_data_array& candidates, int32_t k, TopKCapture& out) {
  TopKHeap heap(k);
  for (size_t i = 0; i < candidates.size; i++) heap.offer(candidates.data[i].logit, candidates.data[i].id);
  heap.write(out);
}

void scatterCandidates(const llama_token_data_array& candidates, float* out, int32_t vocabSize) {
  std::fill(out, out + vocabSize, negativeInfinity);
  for (size_t i = 0; i < candidates.size; i++) {
    const int32_t id = candidates.data[i].id;
    if (id >= 0 && id < vocabSize) out[id] = candidates.data[i].logit;
  }
}
}  // namespace tessera

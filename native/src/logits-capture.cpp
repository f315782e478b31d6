#include "logits-capture.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace tessera {
namespace {
constexpr float negativeInfinity = -std::numeric_limits<float>::infinity();

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
  float maximum = negativeInfinity;
  for (int32_t i = 0; i < size; i++) maximum = std::max(maximum, row[i]);
  if (maximum == negativeInfinity) return negativeInfinity;
  double sum = 0;
  for (int32_t i = 0; i < size; i++) sum += std::exp(static_cast<double>(row[i] - maximum));
  return maximum + static_cast<float>(std::log(sum));
}

float logSumExpCandidates(const llama_token_data_array& candidates) {
  float maximum = negativeInfinity;
  for (size_t i = 0; i < candidates.size; i++) maximum = std::max(maximum, candidates.data[i].logit);
  if (maximum == negativeInfinity) return negativeInfinity;
  double sum = 0;
  for (size_t i = 0; i < candidates.size; i++) sum += std::exp(static_cast<double>(candidates.data[i].logit - maximum));
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

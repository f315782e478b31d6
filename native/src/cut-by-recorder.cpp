#include "cut-by-recorder.h"

#include <algorithm>
#include <cmath>

namespace tessera {

void CutByRecorder::begin(const TopKCapture& raw, uint8_t* out) {
  ids_ = raw.ids.data();
  // The index holds 1 + position in a byte: a top-k of up to 255 is tracked (TypeScript refuses more).
  k_ = std::min<size_t>(raw.ids.size(), 255);
  out_ = out;
  seen_.resize(k_);
  for (size_t index = 0; index < raw.ids.size(); index++) out[index] = static_cast<uint8_t>(SamplerStage::none);
  for (size_t index = 0; index < k_; index++) {
    if (ids_[index] >= 0) slotOf_[static_cast<size_t>(ids_[index])] = static_cast<uint8_t>(index + 1);
  }
}

namespace {
bool isTruncation(uint8_t stage) {
  return stage == static_cast<uint8_t>(SamplerStage::topK) || stage == static_cast<uint8_t>(SamplerStage::typicalP) ||
         stage == static_cast<uint8_t>(SamplerStage::topP) || stage == static_cast<uint8_t>(SamplerStage::minP);
}
}  // namespace

void CutByRecorder::markSeen(const llama_token_data_array& candidates) {
  std::fill(seen_.begin(), seen_.end(), 0);
  for (size_t index = 0; index < candidates.size; index++) {
    const llama_token_data& candidate = candidates.data[index];
    const uint8_t slot = slotOf_[static_cast<size_t>(candidate.id)];
    // -inf is how the grammar and a banning bias remove a token without shrinking the array.
    if (slot != 0 && candidate.logit > -INFINITY) seen_[slot - 1] = 1;
  }
}

bool CutByRecorder::hasTruncationCuts() const {
  for (size_t index = 0; index < k_; index++) {
    if (isTruncation(out_[index])) return true;
  }
  return false;
}

void CutByRecorder::reattribute(const llama_token_data_array& candidates, SamplerStage modifier) {
  markSeen(candidates);
  for (size_t index = 0; index < k_; index++) {
    if (seen_[index] != 0 && isTruncation(out_[index])) out_[index] = static_cast<uint8_t>(modifier);
  }
}

void CutByRecorder::afterStage(const llama_token_data_array& candidates, SamplerStage stage) {
  markSeen(candidates);
  for (size_t index = 0; index < k_; index++) {
    if (ids_[index] < 0 || seen_[index] != 0 || out_[index] != static_cast<uint8_t>(SamplerStage::none)) continue;
    out_[index] = static_cast<uint8_t>(stage);
  }
}

void CutByRecorder::end() {
  for (size_t index = 0; index < k_; index++) {
    if (ids_[index] >= 0) slotOf_[static_cast<size_t>(ids_[index])] = 0;
  }
  ids_ = nullptr;
  out_ = nullptr;
  k_ = 0;
}
}  // namespace tessera

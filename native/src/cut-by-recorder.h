#pragma once
#include <cstdint>
#include <vector>

#include "llama.h"
#include "logits-capture.h"

namespace tessera {

// The stages of the processing chain that can remove a candidate, as stored in the event batch's
// `raw.cutBy` column (src/backends/llamacpp/native-addon.ts mirrors these numbers). 0: the candidate
// survived into the distribution the selector drew from (or is padding).
enum class SamplerStage : uint8_t {
  none = 0,
  logitBias = 1,
  penalties = 2,
  grammar = 3,
  topK = 4,
  typicalP = 5,
  topP = 6,
  minP = 7,
};

// Records, for one token, which stage removed each of the raw top-k candidates ("cut by"): after every
// stage, a candidate no longer in the array, or left at -inf, is marked with that stage unless an
// earlier one already removed it. Optional per job (recordCutBy); when off, the chain runs
// without it and pays one null check per stage.
//
// A logit bias or a penalty removes a token by itself only at -inf; usually it lowers the token and a
// later truncation (top-k, typical-p, top-p, min-p) cuts it. Such a cut is the bias's or the penalty's
// doing when the candidate survives the chain run again without that stage (SamplerSet runs those
// counterfactual chains on a copy of the row): it is then labelled with the bias or the penalty.
class CutByRecorder {
 public:
  // Decode thread, when the job starts: an index of the vocabulary, so a stage costs one pass
  // over the candidates that remain, whatever their order.
  void prepare(int32_t vocabSize) { slotOf_.assign(static_cast<size_t>(vocabSize), 0); }
  void begin(const TopKCapture& raw, uint8_t* out);
  void afterStage(const llama_token_data_array& candidates, SamplerStage stage);
  // Whether some candidate was cut by a truncation stage (only then do counterfactual chains matter).
  bool hasTruncationCuts() const;
  // `candidates` is the chain run without `modifier`: truncation cuts it survives become the modifier's.
  void reattribute(const llama_token_data_array& candidates, SamplerStage modifier);
  // Vocabulary-sized buffers for the counterfactual chains: the row before the chain, and a working copy.
  std::vector<llama_token_data>& original() { return original_; }
  std::vector<llama_token_data>& scratch() { return scratch_; }
  // Clears the index for the next token.
  void end();
  void release() {
    std::vector<uint8_t>().swap(slotOf_);
    std::vector<llama_token_data>().swap(original_);
    std::vector<llama_token_data>().swap(scratch_);
  }

 private:
  std::vector<uint8_t> slotOf_;  // vocabulary id -> 1 + its index in the raw top-k; 0 when not tracked
  const int32_t* ids_ = nullptr;
  size_t k_ = 0;
  uint8_t* out_ = nullptr;
  std::vector<uint8_t> seen_;
  std::vector<llama_token_data> original_;
  std::vector<llama_token_data> scratch_;

  void markSeen(const llama_token_data_array& candidates);
};
}  // namespace tessera

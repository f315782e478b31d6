#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cut-by-recorder.h"
#include "llama.h"

namespace tessera {

// Options for one job, copied from JavaScript (already validated there).
struct SamplerConfig {
  bool greedy = false;  // selector: greedy arg-max, or seeded `dist`
  uint32_t seed = 0;
  bool hasTemperature = false;
  float temperature = 1.0f;
  int32_t topK = 0;        // 0 = off
  float topP = 1.0f;       // 1 = off
  float minP = 0.0f;       // 0 = off
  float typicalP = 1.0f;   // 1 = off
  int32_t penaltyLastN = 64;
  float repeatPenalty = 1.0f;
  float frequencyPenalty = 0.0f;
  float presencePenalty = 0.0f;
  std::vector<llama_logit_bias> logitBias;
  std::string grammar;
  std::string grammarRoot = "root";
};

// The processing samplers (no selector) in llama.cpp's usual order, then the selector. Kept as
// separate samplers rather than one chain so that prompt tokens can be fed to the penalties only.
class SamplerSet {
 public:
  SamplerSet() = default;
  SamplerSet(const SamplerSet&) = delete;
  SamplerSet& operator=(const SamplerSet&) = delete;
  ~SamplerSet();

  // Throws std::invalid_argument with llama.cpp's parser message when the grammar does not parse.
  void build(const llama_vocab* vocab, const SamplerConfig& config);
  void acceptPromptToken(llama_token token);
  // With a recorder, marks after each stage which raw top-k candidates it removed (recordCutBy).
  void applyProcessing(llama_token_data_array& candidates, CutByRecorder* recorder = nullptr);
  void applySelector(llama_token_data_array& candidates);
  void accept(llama_token token);
  bool hasProcessing() const { return !processing_.empty(); }
  // Temperature-only sampling (or none) with a seeded draw runs on the dense row in
  // DecodeEngine::sample instead of llama.cpp's samplers: no candidate array, vectorized passes.
  bool isDenseDraw() const { return denseDraw_; }
  float denseTemperature() const { return denseTemperature_; }
  double drawUniform() { return uniform_(random_); }
  // Frees every sampler (grammar state can be large); the set is empty afterwards.
  void clear();

 private:
  void add(llama_sampler* sampler, SamplerStage stage);

  std::vector<llama_sampler*> processing_;
  std::vector<SamplerStage> stages_;  // processing_[i]'s label for cut-by; none for temperature (removes nothing)
  llama_sampler* penalties_ = nullptr;  // also in processing_
  llama_sampler* selector_ = nullptr;
  bool denseDraw_ = false;
  float denseTemperature_ = 1.0f;
  std::mt19937 random_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
};
}  // namespace tessera

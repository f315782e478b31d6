#include "sampler-set.h"

#include <stdexcept>

#include "addon-logging.h"

namespace tessera {

SamplerSet::~SamplerSet() {
  for (auto* sampler : processing_) llama_sampler_free(sampler);
  if (selector_ != nullptr) llama_sampler_free(selector_);
}

void SamplerSet::build(const llama_vocab* vocab, const SamplerConfig& config) {
  const int32_t vocabSize = llama_vocab_n_tokens(vocab);
  if (!config.logitBias.empty()) {
    processing_.push_back(llama_sampler_init_logit_bias(vocabSize, static_cast<int32_t>(config.logitBias.size()),
                                                        config.logitBias.data()));
  }
  if (config.penaltyLastN != 0 &&
      (config.repeatPenalty != 1.0f || config.frequencyPenalty != 0.0f || config.presencePenalty != 0.0f)) {
    penalties_ = llama_sampler_init_penalties(vocabSize, config.penaltyLastN, config.repeatPenalty,
                                              config.frequencyPenalty, config.presencePenalty);
    processing_.push_back(penalties_);
  }
  if (!config.grammar.empty()) {
    clearRecentErrors();
    llama_sampler* grammar = llama_sampler_init_grammar(vocab, config.grammar.c_str(), config.grammarRoot.c_str());
    if (grammar == nullptr) {
      std::string details = takeRecentErrors();
      throw std::invalid_argument(details.empty() ? std::string("llama.cpp could not parse the grammar") : details);
    }
    processing_.push_back(grammar);
  }
  if (config.topK > 0) processing_.push_back(llama_sampler_init_top_k(config.topK));
  if (config.typicalP < 1.0f) processing_.push_back(llama_sampler_init_typical(config.typicalP, 1));
  if (config.topP < 1.0f) processing_.push_back(llama_sampler_init_top_p(config.topP, 1));
  if (config.minP > 0.0f) processing_.push_back(llama_sampler_init_min_p(config.minP, 1));
  if (config.hasTemperature) processing_.push_back(llama_sampler_init_temp(config.temperature));
  selector_ = config.greedy ? llama_sampler_init_greedy() : llama_sampler_init_dist(config.seed);
}

void SamplerSet::acceptPromptToken(llama_token token) {
  if (penalties_ != nullptr) llama_sampler_accept(penalties_, token);
}

void SamplerSet::applyProcessing(llama_token_data_array& candidates) {
  for (auto* sampler : processing_) llama_sampler_apply(sampler, &candidates);
}

void SamplerSet::applySelector(llama_token_data_array& candidates) { llama_sampler_apply(selector_, &candidates); }

void SamplerSet::accept(llama_token token) {
  for (auto* sampler : processing_) llama_sampler_accept(sampler, token);
  llama_sampler_accept(selector_, token);
}
}  // namespace tessera

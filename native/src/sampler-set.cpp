#include "sampler-set.h"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "addon-logging.h"

namespace tessera {
namespace {
// llama.cpp's grammar parser prints its syntax errors (with the whole grammar) straight to stderr.
// Sending fd 2 to a temporary file for the duration of the call keeps stderr clean and lets the
// error say what was wrong. A file, not a pipe, so a long message can never block the writer.
llama_sampler* initGrammarCapturingStderr(const llama_vocab* vocab, const SamplerConfig& config, std::string& printed) {
  std::fflush(stderr);
  FILE* capture = std::tmpfile();
  const int saved = capture == nullptr ? -1 : dup(2);
  if (saved >= 0) dup2(fileno(capture), 2);
  llama_sampler* grammar = llama_sampler_init_grammar(vocab, config.grammar.c_str(), config.grammarRoot.c_str());
  if (saved >= 0) {
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::rewind(capture);
    char buffer[1024];
    const size_t length = std::fread(buffer, 1, sizeof(buffer) - 1, capture);
    printed.assign(buffer, length);
    const size_t marker = printed.find("error parsing grammar: ");
    if (marker != std::string::npos) {
      printed = printed.substr(marker + 23);
      printed = printed.substr(0, printed.find('\n'));
    } else {
      printed.clear();
    }
  }
  if (capture != nullptr) std::fclose(capture);
  return grammar;
}
}  // namespace


SamplerSet::~SamplerSet() { clear(); }

void SamplerSet::clear() {
  denseDraw_ = false;
  for (auto* sampler : processing_) llama_sampler_free(sampler);
  processing_.clear();
  stages_.clear();
  penalties_ = nullptr;
  if (selector_ != nullptr) llama_sampler_free(selector_);
  selector_ = nullptr;
}

void SamplerSet::build(const llama_vocab* vocab, const SamplerConfig& config) {
  const int32_t vocabSize = llama_vocab_n_tokens(vocab);
  const bool penalized =
      config.penaltyLastN != 0 &&
      (config.repeatPenalty != 1.0f || config.frequencyPenalty != 0.0f || config.presencePenalty != 0.0f);
  if (!config.greedy && config.logitBias.empty() && !penalized && config.grammar.empty() && config.topK <= 0 &&
      config.typicalP >= 1.0f && config.topP >= 1.0f && config.minP <= 0.0f &&
      (!config.hasTemperature || config.temperature > 0.0f)) {
    denseDraw_ = true;
    denseTemperature_ = config.hasTemperature ? config.temperature : 1.0f;
    random_.seed(config.seed);
    return;
  }
  if (!config.logitBias.empty()) {
    add(llama_sampler_init_logit_bias(vocabSize, static_cast<int32_t>(config.logitBias.size()), config.logitBias.data()),
        SamplerStage::logitBias);
  }
  if (config.penaltyLastN != 0 &&
      (config.repeatPenalty != 1.0f || config.frequencyPenalty != 0.0f || config.presencePenalty != 0.0f)) {
    penalties_ = llama_sampler_init_penalties(vocabSize, config.penaltyLastN, config.repeatPenalty,
                                              config.frequencyPenalty, config.presencePenalty);
    add(penalties_, SamplerStage::penalties);
  }
  if (!config.grammar.empty()) {
    clearRecentErrors();
    std::string printed;
    llama_sampler* grammar = initGrammarCapturingStderr(vocab, config, printed);
    if (grammar == nullptr) {
      std::string details = printed.empty() ? takeRecentErrors() : printed;
      throw std::invalid_argument(details.empty() ? std::string("llama.cpp could not parse the grammar") : details);
    }
    add(grammar, SamplerStage::grammar);
  }
  if (config.topK > 0) add(llama_sampler_init_top_k(config.topK), SamplerStage::topK);
  if (config.typicalP < 1.0f) add(llama_sampler_init_typical(config.typicalP, 1), SamplerStage::typicalP);
  if (config.topP < 1.0f) add(llama_sampler_init_top_p(config.topP, 1), SamplerStage::topP);
  if (config.minP > 0.0f) add(llama_sampler_init_min_p(config.minP, 1), SamplerStage::minP);
  if (config.hasTemperature) add(llama_sampler_init_temp(config.temperature), SamplerStage::none);
  selector_ = config.greedy ? llama_sampler_init_greedy() : llama_sampler_init_dist(config.seed);
}

void SamplerSet::acceptPromptToken(llama_token token) {
  // (no-op for dense draws: they have no penalties)
  if (penalties_ != nullptr) llama_sampler_accept(penalties_, token);
}

void SamplerSet::add(llama_sampler* sampler, SamplerStage stage) {
  processing_.push_back(sampler);
  stages_.push_back(stage);
}

void SamplerSet::applyProcessing(llama_token_data_array& candidates, CutByRecorder* recorder) {
  if (recorder == nullptr) {
    for (auto* sampler : processing_) llama_sampler_apply(sampler, &candidates);
    return;
  }
  // Counterfactual chains need the row as it was before the chain (the chain reorders and shrinks it).
  bool modifies = false;
  for (SamplerStage stage : stages_) modifies |= stage == SamplerStage::logitBias || stage == SamplerStage::penalties;
  if (modifies) recorder->original().assign(candidates.data, candidates.data + candidates.size);
  for (size_t index = 0; index < processing_.size(); index++) {
    llama_sampler_apply(processing_[index], &candidates);
    if (stages_[index] != SamplerStage::none) recorder->afterStage(candidates, stages_[index]);
  }
  if (!modifies) return;
  // In chain order, so a cut that the bias alone explains is the bias's even when a penalty also applied.
  // Applying a sampler does not change its state (accept does), so running the chain again is safe.
  for (size_t skipped = 0; skipped < processing_.size(); skipped++) {
    const SamplerStage stage = stages_[skipped];
    if (stage != SamplerStage::logitBias && stage != SamplerStage::penalties) continue;
    if (!recorder->hasTruncationCuts()) return;
    auto& scratch = recorder->scratch();
    scratch = recorder->original();
    llama_token_data_array without{scratch.data(), scratch.size(), -1, false};
    for (size_t index = 0; index < processing_.size(); index++) {
      if (index != skipped) llama_sampler_apply(processing_[index], &without);
    }
    recorder->reattribute(without, stage);
  }
}

void SamplerSet::applySelector(llama_token_data_array& candidates) { llama_sampler_apply(selector_, &candidates); }

void SamplerSet::accept(llama_token token) {
  for (auto* sampler : processing_) llama_sampler_accept(sampler, token);
  if (selector_ != nullptr) llama_sampler_accept(selector_, token);
}
}  // namespace tessera

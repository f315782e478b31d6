#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "llama.h"

namespace tessera {
class DecodeEngine;

// Owns a llama_model. Contexts keep it alive through shared_ptr; an explicit dispose first disposes
// every context created from it, so no decode thread ever runs on a freed model.
struct ModelHandle {
  llama_model* model = nullptr;
  const llama_vocab* vocab = nullptr;
  int32_t vocabSize = 0;
  std::mutex enginesMutex;
  std::vector<std::weak_ptr<DecodeEngine>> engines;

  ~ModelHandle() {
    if (model != nullptr) llama_model_free(model);
  }
};
}  // namespace tessera

#pragma once
#include <atomic>
#include <cstdint>

#include "huge-pages.h"
#include "llama.h"

namespace tessera {

// Owns a llama_model. Contexts keep it alive through shared_ptr; an explicit dispose first disposes
// every context created from it (found in the EngineRegistry), so no decode thread ever runs on a freed model.
//
// A context being created on a worker thread reads the model without any engine yet: dispose() then
// only marks the handle, and the weights are freed by whichever of dispose() and the last in-flight
// creation finishes second (both on the JavaScript thread), so llama_init_from_model never reads freed
// weights.
struct ModelHandle {
  llama_model* model = nullptr;
  const llama_vocab* vocab = nullptr;
  int32_t vocabSize = 0;
  // The longest token's text in bytes (special tokens rendered), found by the load worker: 0 when that scan
  // failed (a broken vocabulary), and JavaScript then finds it itself. See longestPieceBytes().
  int32_t longestPieceBytes = 0;
  // What the load did about huge pages (huge-pages.h); its contexts advise too when loadAdvice.requested.
  HugePageAdvice loadAdvice;

  std::atomic<bool> disposed{false};  // set on the JavaScript thread, read by creation workers
  int32_t pendingContexts = 0;        // [JavaScript thread] creations queued and not yet settled

  // JavaScript thread: frees the weights once disposed and no creation is in flight.
  void freeIfUnused() {
    if (!disposed.load() || pendingContexts > 0 || model == nullptr) return;
    llama_model_free(model);
    model = nullptr;
  }

  ~ModelHandle() {
    if (model != nullptr) llama_model_free(model);
  }
};
}  // namespace tessera

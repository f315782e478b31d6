#pragma once
#include <napi.h>

namespace tessera {

// trainModel(options, onProgress?) -> { promise, stop() }
//
// Trains a GGUF with llama.cpp's own training API (ggml-opt through llama_opt_init / llama_opt_epoch)
// on a worker thread and writes the result with llama_model_save_to_file. The caller (src/training/)
// validates every option and builds the datapoints; this side only bounds-checks the token ids, since
// an id outside the vocabulary is a GGML_ASSERT (an abort) inside llama_opt_epoch.
//
// Training runs in shards, one llama_opt_epoch call each, because its callback cannot stop mid-call:
// stop() takes effect at the next shard boundary, and the weights trained so far are still written.
Napi::Value TrainModel(const Napi::CallbackInfo& info);
}  // namespace tessera

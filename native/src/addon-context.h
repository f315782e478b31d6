#pragma once
#include <napi.h>

#include <memory>

#include "addon-support.h"
#include "decode-engine.h"
#include "model-handle.h"

namespace tessera {

// JavaScript handle of a llama_context and its decode thread.
class AddonContext : public Napi::ObjectWrap<AddonContext> {
 public:
  static Napi::Function Define(Napi::Env env);
  // Creates the llama_context on a worker thread; resolves to an AddonContext.
  static Napi::Value Create(Napi::Env env, const std::shared_ptr<ModelHandle>& model, const Napi::Object& options);
  // Stops an engine and settles its jobs' waiting pulls (JavaScript thread only).
  static void DisposeEngine(Napi::Env env, const std::shared_ptr<DecodeEngine>& engine);

  explicit AddonContext(const Napi::CallbackInfo& info);
  ~AddonContext() override;
  void attach(Napi::Env env, const std::shared_ptr<ModelHandle>& model, llama_context* context,
              int32_t prefillChunkSize, const HugePageAdvice& advice);

 private:
  Napi::Value Generate(const Napi::CallbackInfo& info);
  Napi::Value GetSequenceTokens(const Napi::CallbackInfo& info);
  Napi::Value GetInfo(const Napi::CallbackInfo& info);
  Napi::Value GetCounters(const Napi::CallbackInfo& info);
  Napi::Value ResetPeakCounter(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  DecodeEngine& requireEngine(Napi::Env env);

  std::shared_ptr<ModelHandle> model_;
  HugePageAdvice hugePageAdvice_;  // what creating the context did about huge pages (getInfo)
  std::shared_ptr<DecodeEngine> engine_;
  std::shared_ptr<LoopKeeper> loop_;
};
}  // namespace tessera

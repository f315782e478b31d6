#pragma once
#include <napi.h>

#include <memory>

#include "model-handle.h"

namespace tessera {

// JavaScript handle of a loaded llama_model: tokenizer, metadata, context creation, dispose.
class AddonModel : public Napi::ObjectWrap<AddonModel> {
 public:
  static Napi::Function Define(Napi::Env env);
  // loadModel(path, { gpuLayers, useMmap, hugePages }, onProgress?) -> { promise, abort() }
  static Napi::Value Load(const Napi::CallbackInfo& info);

  explicit AddonModel(const Napi::CallbackInfo& info);
  ~AddonModel() override;

  void attach(llama_model* model, int32_t longestPieceBytes, const HugePageAdvice& advice);
  const std::shared_ptr<ModelHandle>& handle() const { return handle_; }
  ModelHandle& requireLoaded(Napi::Env env);

 private:
  Napi::Value Tokenize(const Napi::CallbackInfo& info);
  Napi::Value Detokenize(const Napi::CallbackInfo& info);
  Napi::Value TokenToPiece(const Napi::CallbackInfo& info);
  Napi::Value LongestPieceBytes(const Napi::CallbackInfo& info);
  Napi::Value SpecialTokens(const Napi::CallbackInfo& info);
  Napi::Value HugePages(const Napi::CallbackInfo& info);
  Napi::Value GetMetadata(const Napi::CallbackInfo& info);
  static Napi::Value metadataObject(Napi::Env env, const ModelHandle& handle);
  Napi::Value CreateContext(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);
  void disposeNow(Napi::Env env);

  std::shared_ptr<ModelHandle> handle_;
  bool disposed_ = false;
};
}  // namespace tessera

#include "addon-model.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "addon-context.h"
#include "addon-logging.h"
#include "addon-support.h"
#include "decode-engine.h"
#include "engine-registry.h"

namespace tessera {
namespace {

// The longest token's text in bytes, special tokens rendered: what bounds a prompt's token count from its
// byte length without tokenizing it (LlamaModel.longestTokenBytes). A pass over the whole vocabulary,
// done here on the load worker (~10 ms for 128k tokens) rather than by JavaScript on the first long
// prompt, which paid 77 ms for it on the 1B model's first request. 0 when llama.cpp throws on some token
// (a broken vocabulary): the model still loads, and JavaScript finds the length itself, with typed errors.
int32_t longestPieceBytes(const llama_model* model) {
  try {
    const llama_vocab* vocab = llama_model_get_vocab(model);
    const int32_t count = llama_vocab_n_tokens(vocab);
    char buffer[256];
    int32_t longest = 1;
    for (llama_token token = 0; token < count; token++) {
      const int32_t length = llama_token_to_piece(vocab, token, buffer, sizeof(buffer), 0, true);
      // A negative length is the size a piece longer than the buffer needs.
      longest = std::max(longest, length < 0 ? -length : length);
    }
    return longest;
  } catch (const std::exception&) {
    return 0;
  }
}

class LoadModelWorker : public Napi::AsyncWorker {
 public:
  LoadModelWorker(Napi::Env env, std::string path, int32_t gpuLayers, bool useMmap, bool hugePages,
                  std::shared_ptr<std::atomic<bool>> abortFlag, Napi::Value onProgress)
      : Napi::AsyncWorker(env, "tessera:loadModel"),
        deferred_(Napi::Promise::Deferred::New(env)),
        path_(std::move(path)),
        gpuLayers_(gpuLayers),
        useMmap_(useMmap),
        hugePages_(hugePages),
        abortFlag_(std::move(abortFlag)) {
    if (onProgress.IsFunction()) {
      progress_ = Napi::ThreadSafeFunction::New(env, onProgress.As<Napi::Function>(), "tessera:loadProgress", 0, 1);
      hasProgress_ = true;
    }
  }

  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override {
    llama_model_params params = llama_model_default_params();
    params.n_gpu_layers = gpuLayers_;
    if (!useMmap_) params.load_mode = LLAMA_LOAD_MODE_NONE;  // default mode maps the file when it can
    params.progress_callback = &LoadModelWorker::onProgress;
    params.progress_callback_user_data = this;
    clearRecentErrors();
    if (hugePages_) mappedBefore_ = anonymousMappings();
    model_ = llama_model_load_from_file(path_.c_str(), params);
    if (model_ == nullptr) {
      if (abortFlag_->load()) {
        code_ = "ERR_ABORTED";
        failure_ = "model loading was aborted";
      } else {
        code_ = "ERR_MODEL_LOAD";
        const std::string details = takeRecentErrors();
        failure_ = "llama.cpp could not load " + path_ + (details.empty() ? std::string() : ": " + details);
      }
      return;
    }
    longestPieceBytes_ = longestPieceBytes(model_);
    advice_ = hugePages_ ? adviseHugePages(mappedBefore_, kHugePageMinimumBytes) : notAdvised();
  }

  ~LoadModelWorker() override {
    if (model_ != nullptr) llama_model_free(model_);  // never handed to an AddonModel
  }

  // Failures travel in failure_, not through SetError (see CreateContextWorker::OnOK).
  void OnOK() override {
    releaseProgress();
    settleSafely(deferred_, [this] {
      Napi::Env env = Env();
      if (!failure_.empty()) {
        deferred_.Reject(codedError(env, code_.c_str(), failure_).Value());
        return;
      }
      Napi::Object object = addonData(env).modelConstructor.New({});
      AddonModel::Unwrap(object)->attach(model_, longestPieceBytes_, advice_);
      model_ = nullptr;
      deferred_.Resolve(object);
    });
  }

 private:
  static bool onProgress(float progress, void* data) {
    auto* self = static_cast<LoadModelWorker*>(data);
    // The first call comes after llama.cpp has allocated the weights' buffers and before it writes any
    // (llama_model_loader::load_all_data): advised now, the repack's writes fault in huge pages directly,
    // and the collapse after the load has nothing left to copy (it took 1.7 s of the 1B model's load
    // when it did all the work; docs/native.md, "Huge pages").
    if (self->hugePages_ && !self->advisedEarly_) {
      self->advisedEarly_ = true;
      adviseHugePages(self->mappedBefore_, kHugePageMinimumBytes, /*collapse=*/false);
    }
    if (self->hasProgress_) {
      auto* value = new float(progress);
      if (self->progress_.NonBlockingCall(value, [](Napi::Env env, Napi::Function callback, float* progressValue) {
            const double reported = *progressValue;
            delete progressValue;
            if (env == nullptr) return;
            // Same as the decode notifications: a terminating Worker cannot run the callback, and an
            // exception escaping here would abort the process. A throwing user callback is reported
            // by Node as an uncaught exception of its own environment.
            try {
              callback.Call({Napi::Number::New(env, reported)});
            } catch (const Napi::Error& error) {
              try {
                error.ThrowAsJavaScriptException();
              } catch (const std::exception&) {
              }
            } catch (const std::exception&) {
            }
          }) != napi_ok) {
        delete value;
      }
    }
    return !self->abortFlag_->load();
  }

  void releaseProgress() {
    if (hasProgress_) {
      progress_.Release();
      hasProgress_ = false;
    }
  }

  Napi::Promise::Deferred deferred_;
  std::string path_;
  int32_t gpuLayers_;
  bool useMmap_;
  bool hugePages_;
  bool advisedEarly_ = false;
  MappingSnapshot mappedBefore_;  // anonymous mappings before the load (hugePages_ only)
  HugePageAdvice advice_;
  std::shared_ptr<std::atomic<bool>> abortFlag_;
  Napi::ThreadSafeFunction progress_;
  bool hasProgress_ = false;
  llama_model* model_ = nullptr;
  int32_t longestPieceBytes_ = 0;
  std::string code_ = "ERR_MODEL_LOAD";
  std::string failure_;
};

std::string metadataString(const llama_model* model, const char* key) {
  char buffer[256];
  const int32_t length = llama_model_meta_val_str(model, key, buffer, sizeof(buffer));
  if (length < 0) return "";
  if (static_cast<size_t>(length) < sizeof(buffer)) return std::string(buffer, static_cast<size_t>(length));
  std::string value(static_cast<size_t>(length) + 1, '\0');
  llama_model_meta_val_str(model, key, value.data(), value.size());
  value.resize(static_cast<size_t>(length));
  return value;
}

// llama.cpp reports some faults by throwing (std::out_of_range from token_to_id.at() over a vocabulary
// that lacks its byte tokens, std::runtime_error from the tokenizer); an exception escaping an N-API
// callback terminates the process, so each call into llama.cpp goes through here and becomes a coded
// JavaScript error instead.
template <typename Call>
auto guardLlama(Napi::Env env, const char* code, const char* action, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& error) {
    throwCoded(env, code, std::string("llama.cpp failed to ") + action + ": " + error.what() +
                              " (the model file is probably malformed)");
  } catch (...) {
    throwCoded(env, code, std::string("llama.cpp failed to ") + action + " (the model file is probably malformed)");
  }
}

llama_token checkedToken(Napi::Env env, const ModelHandle& handle, Napi::Value value) {
  if (!value.IsNumber()) throwCoded(env, "ERR_INVALID_ARGUMENT", "a token id must be a number");
  const double raw = value.As<Napi::Number>().DoubleValue();
  if (!(raw >= 0 && raw < handle.vocabSize) || raw != static_cast<double>(static_cast<int64_t>(raw))) {
    throwCoded(env, "ERR_TOKEN_OUT_OF_RANGE",
               "token id " + std::to_string(raw) + " is outside the vocabulary [0, " + std::to_string(handle.vocabSize) + ")");
  }
  return static_cast<llama_token>(raw);
}
}  // namespace

Napi::Function AddonModel::Define(Napi::Env env) {
  return DefineClass(env, "AddonModel",
                     {
                         StaticMethod("load", &AddonModel::Load),
                         InstanceMethod("tokenize", &AddonModel::Tokenize),
                         InstanceMethod("detokenize", &AddonModel::Detokenize),
                         InstanceMethod("tokenToPiece", &AddonModel::TokenToPiece),
                         InstanceMethod("longestPieceBytes", &AddonModel::LongestPieceBytes),
                         InstanceMethod("specialTokens", &AddonModel::SpecialTokens),
                         InstanceMethod("hugePages", &AddonModel::HugePages),
                         InstanceMethod("getMetadata", &AddonModel::GetMetadata),
                         InstanceMethod("createContext", &AddonModel::CreateContext),
                         InstanceMethod("dispose", &AddonModel::Dispose),
                         InstanceMethod("isDisposed", &AddonModel::IsDisposed),
                     });
}

Napi::Value AddonModel::Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throwCoded(env, "ERR_INVALID_ARGUMENT", "loadModel expects a path string");
  Napi::Object options = info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
  auto abortFlag = std::make_shared<std::atomic<bool>>(false);
  auto* worker = new LoadModelWorker(env, info[0].As<Napi::String>().Utf8Value(),
                                     static_cast<int32_t>(numberOption(options, "gpuLayers", 0)),
                                     booleanOption(options, "useMmap", true), booleanOption(options, "hugePages", true),
                                     abortFlag, info[2]);
  Napi::Object result = Napi::Object::New(env);
  result.Set("promise", worker->promise());
  auto* flagHolder = new std::shared_ptr<std::atomic<bool>>(abortFlag);
  Napi::Function abort = Napi::Function::New(
      env,
      [](const Napi::CallbackInfo& callInfo) {
        auto* holder = static_cast<std::shared_ptr<std::atomic<bool>>*>(callInfo.Data());
        (*holder)->store(true);
        return callInfo.Env().Undefined();
      },
      "abort", flagHolder);
  abort.AddFinalizer([](Napi::Env, std::shared_ptr<std::atomic<bool>>* holder) { delete holder; }, flagHolder);
  result.Set("abort", abort);
  worker->Queue();
  return result;
}

AddonModel::AddonModel(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AddonModel>(info) {}

AddonModel::~AddonModel() {
  // Engines hold the handle through shared_ptr, so a collected model never frees weights under a
  // running context; the last owner frees them.
}

void AddonModel::attach(llama_model* model, int32_t longestPieceBytes, const HugePageAdvice& advice) {
  handle_ = std::make_shared<ModelHandle>();
  handle_->loadAdvice = advice;
  handle_->model = model;
  handle_->vocab = llama_model_get_vocab(model);
  handle_->vocabSize = llama_vocab_n_tokens(handle_->vocab);
  handle_->longestPieceBytes = longestPieceBytes;
}

Napi::Value AddonModel::LongestPieceBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, requireLoaded(env).longestPieceBytes);
}

// The tokens llama.cpp splits a text at before tokenizing its pieces when special tokens are parsed (its
// tokenizer_st_partition: control, user-defined and unknown tokens), each with its vocabulary text (not
// its piece: the partition searches for the text) and attributes (lstrip / rstrip trim the whitespace
// beside it). JavaScript repeats that split to tokenize a chat prompt piece by piece (special-token-split.ts, piece-tokenizer.ts).
Napi::Value AddonModel::SpecialTokens(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelHandle& handle = requireLoaded(env);
  constexpr uint32_t special = LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED | LLAMA_TOKEN_ATTR_UNKNOWN;
  std::vector<llama_token> ids;
  for (llama_token token = 0; token < handle.vocabSize; token++) {
    if (static_cast<uint32_t>(llama_vocab_get_attr(handle.vocab, token)) & special) ids.push_back(token);
  }
  Napi::Int32Array tokenIds = Napi::Int32Array::New(env, ids.size());
  Napi::Uint32Array attributes = Napi::Uint32Array::New(env, ids.size());
  Napi::Array texts = Napi::Array::New(env, ids.size());
  for (size_t index = 0; index < ids.size(); index++) {
    tokenIds[index] = ids[index];
    attributes[index] = static_cast<uint32_t>(llama_vocab_get_attr(handle.vocab, ids[index]));
    const char* text = llama_vocab_get_text(handle.vocab, ids[index]);
    const size_t length = text == nullptr ? 0 : std::strlen(text);
    texts.Set(static_cast<uint32_t>(index), Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t*>(text), length));
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("ids", tokenIds);
  result.Set("attributes", attributes);
  result.Set("texts", texts);
  return result;
}

Napi::Value AddonModel::HugePages(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelHandle& handle = requireLoaded(env);
  return hugePageAdviceObject(env, handle.loadAdvice);
}

ModelHandle& AddonModel::requireLoaded(Napi::Env env) {
  if (disposed_) throwCoded(env, "ERR_DISPOSED", "the model was disposed; load it again");
  if (!handle_) throwCoded(env, "ERR_INVALID_STATE", "this model handle was not created by loadModel");
  return *handle_;
}

Napi::Value AddonModel::Tokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelHandle& handle = requireLoaded(env);
  if (!info[0].IsString()) throwCoded(env, "ERR_INVALID_ARGUMENT", "tokenize expects a string");
  const std::string text = info[0].As<Napi::String>().Utf8Value();
  const bool addSpecial = info[1].IsBoolean() && info[1].As<Napi::Boolean>().Value();
  const bool parseSpecial = info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
  if (text.size() > static_cast<size_t>(INT32_MAX / 2)) throwCoded(env, "ERR_INVALID_ARGUMENT", "text is too long to tokenize");
  const int32_t textLength = static_cast<int32_t>(text.size());
  std::vector<llama_token> tokens(text.size() + 8);
  const auto tokenizeInto = [&]() {
    return guardLlama(env, "ERR_TOKENIZE", "tokenize the text", [&]() {
      return llama_tokenize(handle.vocab, text.data(), textLength, tokens.data(), static_cast<int32_t>(tokens.size()),
                            addSpecial, parseSpecial);
    });
  };
  int32_t count = tokenizeInto();
  if (count < 0 && count != INT32_MIN) {
    tokens.resize(static_cast<size_t>(-count));
    count = tokenizeInto();
  }
  if (count < 0) throwCoded(env, "ERR_TOKENIZE", "llama.cpp could not tokenize the text");
  Napi::Int32Array result = Napi::Int32Array::New(env, static_cast<size_t>(count));
  std::copy(tokens.begin(), tokens.begin() + count, result.Data());
  return result;
}

Napi::Value AddonModel::Detokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelHandle& handle = requireLoaded(env);
  if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "detokenize expects an Int32Array of token ids");
  }
  Napi::Int32Array tokens = info[0].As<Napi::Int32Array>();
  for (size_t index = 0; index < tokens.ElementLength(); index++) {
    if (tokens[index] < 0 || tokens[index] >= handle.vocabSize) {
      throwCoded(env, "ERR_TOKEN_OUT_OF_RANGE",
                 "token id " + std::to_string(tokens[index]) + " at index " + std::to_string(index) +
                     " is outside the vocabulary [0, " + std::to_string(handle.vocabSize) + ")");
    }
  }
  const bool removeSpecial = info[1].IsBoolean() && info[1].As<Napi::Boolean>().Value();
  const bool unparseSpecial = info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
  const int32_t count = static_cast<int32_t>(tokens.ElementLength());
  std::string text(static_cast<size_t>(count) * 8 + 16, '\0');
  const auto detokenizeInto = [&]() {
    return guardLlama(env, "ERR_DETOKENIZE", "detokenize the tokens", [&]() {
      return llama_detokenize(handle.vocab, tokens.Data(), count, text.data(), static_cast<int32_t>(text.size()),
                              removeSpecial, unparseSpecial);
    });
  };
  int32_t length = detokenizeInto();
  if (length < 0) {
    text.resize(static_cast<size_t>(-length));
    length = detokenizeInto();
  }
  if (length < 0) throwCoded(env, "ERR_DETOKENIZE", "llama.cpp could not detokenize the tokens");
  text.resize(static_cast<size_t>(length));
  return Napi::String::New(env, text);
}

Napi::Value AddonModel::TokenToPiece(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelHandle& handle = requireLoaded(env);
  const llama_token token = checkedToken(env, handle, info[0]);
  const bool special = info[1].IsBoolean() && info[1].As<Napi::Boolean>().Value();
  std::string piece(64, '\0');
  const auto pieceInto = [&]() {
    return guardLlama(env, "ERR_DETOKENIZE", "turn a token into text", [&]() {
      return llama_token_to_piece(handle.vocab, token, piece.data(), static_cast<int32_t>(piece.size()), 0, special);
    });
  };
  int32_t length = pieceInto();
  if (length < 0) {
    piece.resize(static_cast<size_t>(-length));
    length = pieceInto();
  }
  const size_t size = static_cast<size_t>(std::max(length, 0));
  Napi::Uint8Array bytes = Napi::Uint8Array::New(env, size);
  std::copy(piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(size), bytes.Data());
  return bytes;
}

Napi::Value AddonModel::GetMetadata(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelHandle& handle = requireLoaded(env);
  return guardLlama(env, "ERR_MODEL_LOAD", "read the model's metadata", [&]() { return metadataObject(env, handle); });
}

Napi::Value AddonModel::metadataObject(Napi::Env env, const ModelHandle& handle) {
  const llama_model* model = handle.model;
  const llama_vocab* vocab = handle.vocab;
  Napi::Object metadata = Napi::Object::New(env);
  metadata.Set("vocabSize", handle.vocabSize);
  metadata.Set("trainContextSize", llama_model_n_ctx_train(model));
  metadata.Set("embeddingSize", llama_model_n_embd(model));
  metadata.Set("layerCount", llama_model_n_layer(model));
  metadata.Set("parameterCount", static_cast<double>(llama_model_n_params(model)));
  metadata.Set("sizeBytes", static_cast<double>(llama_model_size(model)));
  char description[256];
  llama_model_desc(model, description, sizeof(description));
  metadata.Set("description", description);
  metadata.Set("architecture", metadataString(model, "general.architecture"));
  metadata.Set("name", metadataString(model, "general.name"));
  const char* chatTemplate = llama_model_chat_template(model, nullptr);
  metadata.Set("chatTemplate", chatTemplate == nullptr ? env.Null() : Napi::String::New(env, chatTemplate));
  metadata.Set("bos", llama_vocab_bos(vocab));
  metadata.Set("eos", llama_vocab_eos(vocab));
  metadata.Set("eot", llama_vocab_eot(vocab));
  metadata.Set("newline", llama_vocab_nl(vocab));
  metadata.Set("padding", llama_vocab_pad(vocab));
  metadata.Set("addBos", llama_vocab_get_add_bos(vocab));
  metadata.Set("addEos", llama_vocab_get_add_eos(vocab));
  std::vector<int32_t> endOfGeneration;
  for (int32_t token = 0; token < handle.vocabSize; token++) {
    if (llama_vocab_is_eog(vocab, token)) endOfGeneration.push_back(token);
  }
  Napi::Int32Array eogTokens = Napi::Int32Array::New(env, endOfGeneration.size());
  std::copy(endOfGeneration.begin(), endOfGeneration.end(), eogTokens.Data());
  metadata.Set("endOfGenerationTokens", eogTokens);
  Napi::Object values = Napi::Object::New(env);
  const int32_t keyCount = llama_model_meta_count(model);
  for (int32_t index = 0; index < keyCount; index++) {
    char key[256];
    if (llama_model_meta_key_by_index(model, index, key, sizeof(key)) < 0) continue;
    values.Set(key, metadataString(model, key));
  }
  metadata.Set("values", values);
  return metadata;
}

Napi::Value AddonModel::CreateContext(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  requireLoaded(env);
  Napi::Object options = info[0].IsObject() ? info[0].As<Napi::Object>() : Napi::Object::New(env);
  return AddonContext::Create(env, handle_, options);
}

void AddonModel::disposeNow(Napi::Env env) {
  if (disposed_ || !handle_) return;
  disposed_ = true;
  handle_->disposed.store(true);  // a context still being created is freed, not attached, when it settles
  for (auto& engine : EngineRegistry::ofModel(handle_.get())) AddonContext::DisposeEngine(env, engine);
  handle_->freeIfUnused();  // else the last createContext in flight frees the weights when it settles
}

Napi::Value AddonModel::Dispose(const Napi::CallbackInfo& info) {
  disposeNow(info.Env());
  return info.Env().Undefined();
}

Napi::Value AddonModel::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), disposed_);
}
}  // namespace tessera

#include "addon-context.h"

#include <stdexcept>
#include <string>

#include "addon-decode-job.h"
#include "engine-registry.h"
#include "test-hooks.h"

namespace tessera {
namespace {

class CreateContextWorker : public Napi::AsyncWorker {
 public:
  CreateContextWorker(Napi::Env env, std::shared_ptr<ModelHandle> model, llama_context_params params,
                      int32_t prefillChunkSize)
      : Napi::AsyncWorker(env, "tessera:createContext"),
        deferred_(Napi::Promise::Deferred::New(env)),
        model_(std::move(model)),
        params_(params),
        prefillChunkSize_(prefillChunkSize) {
    model_->pendingContexts++;  // keeps the weights alive until OnOK/OnError, whatever dispose() does
  }

  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override {
    if (model_->disposed.load()) return;  // settled as ERR_DISPOSED below
    testhooks::pause(testhooks::Point::createContextBeforeInit);
    try {
      const bool hugePages = model_->loadAdvice.requested;
      const MappingSnapshot mappedBefore = hugePages ? anonymousMappings() : MappingSnapshot();
      context_ = llama_init_from_model(model_->model, params_);
      // The KV cache, the output buffer and the compute buffers, read at every step.
      if (context_ != nullptr) advice_ = hugePages ? adviseHugePages(mappedBefore, kHugePageMinimumBytes) : notAdvised();
    } catch (const std::exception& error) {
      failure_ = std::string("llama.cpp could not create the context: ") + error.what();
      return;
    }
    if (context_ == nullptr) {
      failure_ = "llama.cpp could not create a context of " + std::to_string(params_.n_ctx) +
                 " cells; try a smaller contextSize or fewer sequences (the KV cache may not fit in memory)";
    }
  }

  ~CreateContextWorker() override {
    if (context_ != nullptr) llama_free(context_);  // never handed to an AddonContext
  }

  // Failures travel in failure_, not through SetError: node-addon-api would build the Napi::Error for
  // OnError itself, outside any guard of ours, and in a terminating Worker that throws out of its C
  // completion callback (std::terminate). Everything that touches JavaScript runs in settleSafely.
  void OnOK() override {
    if (settleDisposed()) return;
    settleSafely(deferred_, [this] {
      Napi::Env env = Env();
      if (!failure_.empty()) {
        deferred_.Reject(codedError(env, "ERR_CONTEXT_CREATE", failure_).Value());
        return;
      }
      Napi::Object object = addonData(env).contextConstructor.New({});
      AddonContext::Unwrap(object)->attach(env, model_, context_, prefillChunkSize_, advice_);
      context_ = nullptr;
      deferred_.Resolve(object);
    });
  }

 private:
  // The model was disposed while this context was being made: free what was made, reject, and free
  // the weights if this was the last creation in flight.
  bool settleDisposed() {
    model_->pendingContexts--;
    if (!model_->disposed.load()) return false;
    if (context_ != nullptr) llama_free(context_);
    context_ = nullptr;
    model_->freeIfUnused();
    settleSafely(deferred_, [this] {
      deferred_.Reject(
          codedError(Env(), "ERR_DISPOSED", "the model was disposed while the context was being created; load it again")
              .Value());
    });
    return true;
  }

  Napi::Promise::Deferred deferred_;
  std::shared_ptr<ModelHandle> model_;
  llama_context_params params_;
  int32_t prefillChunkSize_;
  llama_context* context_ = nullptr;
  HugePageAdvice advice_;
  std::string failure_;
};

CaptureConfig captureOption(const Napi::Object& options, const char* topKName, const char* fullName) {
  CaptureConfig capture;
  if (booleanOption(options, fullName, false)) {
    capture.mode = CaptureMode::full;
  } else {
    const int32_t topK = static_cast<int32_t>(numberOption(options, topKName, 0));
    if (topK > 0) {
      capture.mode = CaptureMode::topK;
      capture.topK = topK;
    }
  }
  return capture;
}
}  // namespace

Napi::Function AddonContext::Define(Napi::Env env) {
  return DefineClass(env, "AddonContext",
                     {
                         InstanceMethod("generate", &AddonContext::Generate),
                         InstanceMethod("getSequenceTokens", &AddonContext::GetSequenceTokens),
                         InstanceMethod("getInfo", &AddonContext::GetInfo),
                         InstanceMethod("getCounters", &AddonContext::GetCounters),
                         InstanceMethod("resetPeakCounter", &AddonContext::ResetPeakCounter),
                         InstanceMethod("dispose", &AddonContext::Dispose),
                     });
}

Napi::Value AddonContext::Create(Napi::Env env, const std::shared_ptr<ModelHandle>& model, const Napi::Object& options) {
  llama_context_params params = llama_context_default_params();
  // TypeScript refuses these first (docs/native-assertions.md); the addon checks the ones that would
  // otherwise end in a llama.cpp assertion again, so a caller of the raw addon gets an error, not an abort.
  const double sequencesValue = numberOption(options, "sequences", 1);
  const double contextValue = numberOption(options, "contextSize", 4096);
  const double batchValue = numberOption(options, "batchSize", 512);
  const double threadsValue = numberOption(options, "threads", 1);
  const double batchThreadsValue = numberOption(options, "batchThreads", threadsValue);
  if (!(sequencesValue >= 1 && sequencesValue <= 256)) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "sequences must be between 1 and 256");
  }
  if (!(contextValue >= 16 && contextValue * sequencesValue <= 2147483392.0)) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "contextSize must be >= 16 and contextSize × sequences at most 2^31 - 256");
  }
  if (!(batchValue >= sequencesValue && batchValue <= 65536)) {
    throwCoded(env, "ERR_INVALID_ARGUMENT",
               "batchSize must be >= sequences (each sequence needs one output row per step) and <= 65536");
  }
  if (!(threadsValue >= 1 && threadsValue <= 512 && batchThreadsValue >= 1 && batchThreadsValue <= 512)) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "threads and batchThreads must be between 1 and 512");
  }
  const uint32_t sequences = static_cast<uint32_t>(sequencesValue);
  const uint32_t perSequence = static_cast<uint32_t>(contextValue);
  const bool unified = booleanOption(options, "unifiedKvCache", false);
  // contextSize is per sequence: a split cache gives each sequence its own stream of that size; a
  // unified one pools the same total, and any one sequence may then use more than its share.
  params.n_ctx = perSequence * sequences;
  params.n_seq_max = sequences;
  params.kv_unified = unified;
  params.n_batch = static_cast<uint32_t>(numberOption(options, "batchSize", 512));
  params.n_ubatch = std::min<uint32_t>(params.n_batch, 512);
  const int32_t threads = static_cast<int32_t>(numberOption(options, "threads", 1));
  params.n_threads = threads;
  params.n_threads_batch = static_cast<int32_t>(numberOption(options, "batchThreads", threads));
  params.no_perf = true;
  // Flash attention: "auto" is llama.cpp's default (on where the backend supports it); TypeScript passes
  // its own default (docs/native.md: on this kind of CPU "auto" slowed decoding at depth).
  // Only a missing option means "auto": a number, null or other non-string is refused, not read as auto.
  const Napi::Value flashAttentionValue = options.Get("flashAttention");
  if (!flashAttentionValue.IsUndefined() && !flashAttentionValue.IsString()) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "flashAttention must be \"auto\", \"on\" or \"off\" (a string)");
  }
  const std::string flashAttention = stringOption(options, "flashAttention", "auto");
  if (flashAttention == "on") {
    params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_ENABLED;
  } else if (flashAttention == "off") {
    params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  } else if (flashAttention == "auto") {
    params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO;
  } else {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "flashAttention must be \"auto\", \"on\" or \"off\"");
  }
  // 0 (the default) lets a prompt chunk fill the batch; TypeScript passes the micro-batch when a GPU runs layers.
  const double prefillChunkValue = numberOption(options, "prefillChunkSize", 0);
  if (!(prefillChunkValue >= 0 && prefillChunkValue <= 65536)) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "prefillChunkSize must be between 0 and 65536");
  }
  auto* worker = new CreateContextWorker(env, model, params, static_cast<int32_t>(prefillChunkValue));
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

void AddonContext::DisposeEngine(Napi::Env env, const std::shared_ptr<DecodeEngine>& engine) {
  if (!engine || engine->isDisposed()) return;
  for (auto& job : engine->dispose()) {
    if (job->waiter != nullptr) job->waiter->resolvePending(env);
  }
}

AddonContext::AddonContext(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AddonContext>(info) {}

AddonContext::~AddonContext() {
  if (engine_) engine_->dispose();
  // Skipped when Node already finalized the function (environment teardown frees it before this
  // wrapper is collected; releasing it then aborted the process with code 134).
  if (loop_) loop_->close();
}

void AddonContext::attach(Napi::Env env, const std::shared_ptr<ModelHandle>& model, llama_context* context,
                          int32_t prefillChunkSize, const HugePageAdvice& advice) {
  model_ = model;
  hugePageAdvice_ = advice;
  // The finalizer runs when Node frees the function, whether after our Release() or at environment
  // teardown; from then on the keeper must not call into it. The slot is filled once the keeper exists.
  auto keeperSlot = std::make_shared<std::weak_ptr<LoopKeeper>>();
  Napi::ThreadSafeFunction function = Napi::ThreadSafeFunction::New(
      env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}), "tessera:decode", 0, 1,
      [keeperSlot](Napi::Env) {
        if (auto keeper = keeperSlot->lock()) keeper->markFinalized();
      });
  function.Unref(env);
  loop_ = std::make_shared<LoopKeeper>(function);
  *keeperSlot = loop_;
  Napi::ThreadSafeFunction notifyFunction = function;
  engine_ = std::make_shared<DecodeEngine>(model, context, [notifyFunction](const std::shared_ptr<DecodeJob>& job) mutable {
    auto* payload = new std::shared_ptr<DecodeJob>(job);
    const napi_status status = notifyFunction.NonBlockingCall(
        payload, [](Napi::Env callbackEnv, Napi::Function, std::shared_ptr<DecodeJob>* data) {
          std::shared_ptr<DecodeJob> state = std::move(*data);
          delete data;
          if (callbackEnv == nullptr || state->waiter == nullptr) return;
          // A Worker that is being terminated still drains queued calls but can no longer run JavaScript,
          // so building the batch's typed arrays throws. Escaping this C callback, the exception would
          // reach std::terminate and end the whole process, not just the worker: nobody is left to read.
          try {
            state->waiter->resolvePending(callbackEnv);
          } catch (const std::exception&) {
          }
        });
    if (status != napi_ok) delete payload;
  }, prefillChunkSize);
  EngineRegistry::add(engine_, model.get(), &addonData(env));
}

DecodeEngine& AddonContext::requireEngine(Napi::Env env) {
  if (!engine_) throwCoded(env, "ERR_INVALID_STATE", "this context handle was not created by createContext");
  if (engine_->isDisposed()) throwCoded(env, "ERR_DISPOSED", "the context (or its model) was disposed; create a new one");
  return *engine_;
}

Napi::Value AddonContext::Generate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DecodeEngine& engine = requireEngine(env);
  if (!info[0].IsObject()) throwCoded(env, "ERR_INVALID_ARGUMENT", "generate expects an options object");
  Napi::Object options = info[0].As<Napi::Object>();
  Napi::Value tokensValue = options.Get("tokens");
  if (!tokensValue.IsTypedArray() || tokensValue.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "generate expects `tokens` as an Int32Array");
  }
  Napi::Int32Array tokens = tokensValue.As<Napi::Int32Array>();
  const int32_t vocabSize = model_->vocabSize;
  auto state = std::make_shared<DecodeJob>();
  state->vocabSize = vocabSize;
  DecodeJobConfig& config = state->config;
  config.prompt.assign(tokens.Data(), tokens.Data() + tokens.ElementLength());
  if (config.prompt.empty()) throwCoded(env, "ERR_EMPTY_PROMPT", "the prompt has no tokens; pass at least one token");
  for (size_t index = 0; index < config.prompt.size(); index++) {
    if (config.prompt[index] < 0 || config.prompt[index] >= vocabSize) {
      throwCoded(env, "ERR_TOKEN_OUT_OF_RANGE",
                 "prompt token " + std::to_string(config.prompt[index]) + " at index " + std::to_string(index) +
                     " is outside the vocabulary [0, " + std::to_string(vocabSize) + ")");
    }
  }
  if (static_cast<int64_t>(config.prompt.size()) >= engine.sequenceContextSize()) {
    throwCoded(env, "ERR_CONTEXT_OVERFLOW",
               "the prompt has " + std::to_string(config.prompt.size()) + " tokens but a sequence of this context holds " +
                   std::to_string(engine.sequenceContextSize()) + " (one more is needed to generate)");
  }

  SamplerConfig& sampler = config.sampler;
  sampler.greedy = booleanOption(options, "greedy", false);
  sampler.seed = static_cast<uint32_t>(numberOption(options, "seed", 0));
  Napi::Value temperature = options.Get("temperature");
  if (temperature.IsNumber()) {
    sampler.hasTemperature = true;
    sampler.temperature = temperature.As<Napi::Number>().FloatValue();
  }
  sampler.topK = static_cast<int32_t>(numberOption(options, "topK", 0));
  sampler.topP = static_cast<float>(numberOption(options, "topP", 1));
  sampler.minP = static_cast<float>(numberOption(options, "minP", 0));
  sampler.typicalP = static_cast<float>(numberOption(options, "typicalP", 1));
  sampler.penaltyLastN = static_cast<int32_t>(numberOption(options, "penaltyLastN", 64));
  sampler.repeatPenalty = static_cast<float>(numberOption(options, "repeatPenalty", 1));
  sampler.frequencyPenalty = static_cast<float>(numberOption(options, "frequencyPenalty", 0));
  sampler.presencePenalty = static_cast<float>(numberOption(options, "presencePenalty", 0));
  Napi::Value biasTokens = options.Get("logitBiasTokens");
  Napi::Value biasValues = options.Get("logitBiasValues");
  if (biasTokens.IsTypedArray() && biasValues.IsTypedArray()) {
    Napi::Int32Array ids = biasTokens.As<Napi::Int32Array>();
    Napi::Float32Array values = biasValues.As<Napi::Float32Array>();
    if (ids.ElementLength() != values.ElementLength()) {
      throwCoded(env, "ERR_INVALID_ARGUMENT", "logitBiasTokens and logitBiasValues differ in length");
    }
    for (size_t index = 0; index < ids.ElementLength(); index++) {
      if (ids[index] < 0 || ids[index] >= vocabSize) {
        throwCoded(env, "ERR_TOKEN_OUT_OF_RANGE",
                   "logit bias token " + std::to_string(ids[index]) + " is outside the vocabulary [0, " +
                       std::to_string(vocabSize) + ")");
      }
      sampler.logitBias.push_back(llama_logit_bias{ids[index], values[index]});
    }
  }
  sampler.grammar = stringOption(options, "grammar", "");
  sampler.grammarRoot = stringOption(options, "grammarRoot", "root");

  config.raw = captureOption(options, "rawTopK", "rawFull");
  config.processed = captureOption(options, "processedTopK", "processedFull");
  config.recordCutBy = booleanOption(options, "recordCutBy", false);
  if (config.recordCutBy && (config.raw.mode != CaptureMode::topK || config.raw.topK > 255)) {
    throwCoded(env, "ERR_INVALID_ARGUMENT",
               "recordCutBy labels the raw top-k candidates: it needs rawTopK between 1 and 255 (and no rawFull)");
  }
  config.maxTokens = static_cast<int32_t>(numberOption(options, "maxTokens", 0));
  config.ignoreEos = booleanOption(options, "ignoreEos", false);
  config.promptLogprobs = booleanOption(options, "promptLogprobs", false);
  config.reusePrefix = booleanOption(options, "reusePrefix", true);
  config.prefillOnly = booleanOption(options, "prefillOnly", false);
  // `after`: a job of this context that must finish before this one takes a sequence (its prefill-ahead).
  const Napi::Value afterValue = options.Get("after");
  if (!afterValue.IsUndefined() && !afterValue.IsNull()) {
    AddonDecodeJob* after =
        AddonDecodeJob::IsJob(afterValue) ? AddonDecodeJob::Unwrap(afterValue.As<Napi::Object>()) : nullptr;
    if (after == nullptr || after->engine().get() != &engine || !after->state()) {
      throwCoded(env, "ERR_INVALID_ARGUMENT", "`after` must be a generation of this context");
    }
    state->after = after->state();
  }
  config.tokenLogprobs = booleanOption(options, "tokenLogprobs", true);
  const double deliveryDelayMs = numberOption(options, "deliveryDelayMs", 2);
  if (!(deliveryDelayMs >= 0 && deliveryDelayMs <= 1000)) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "deliveryDelayMs must be between 0 and 1000");
  }
  config.deliveryDelayMicros = static_cast<int64_t>(deliveryDelayMs * 1000);
  config.queueCapacity = static_cast<uint32_t>(std::max(1.0, numberOption(options, "queueCapacity", 32)));
  // Reading the options ran the caller's JavaScript (getters, valueOf), which may have disposed this context
  // or its model: a job submitted to a stopped engine never settled (its pull hung), and the samplers below
  // would be built on a freed vocabulary. Checked after the last option is read.
  requireEngine(env);

  try {
    state->samplers.build(model_->vocab, sampler);
  } catch (const std::invalid_argument& error) {
    throwCoded(env, "ERR_GRAMMAR", std::string("the grammar does not parse: ") + error.what());
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& error) {
    // Any other C++ exception from llama.cpp would end the process through the N-API callback.
    throwCoded(env, "ERR_SAMPLER", std::string("llama.cpp could not build the samplers: ") + error.what());
  }
  for (llama_token token : config.prompt) state->samplers.acceptPromptToken(token);
  state->logSumExpOnPull = state->greedyOnRow() && config.raw.mode == CaptureMode::full;

  // Captured logits live in the ring until they are pulled: per slot 4 bytes per vocabulary entry of a
  // full row and 8 per top-k entry (id and value), for raw and processed each. Full rows are allocated
  // as slots are first written; what the ring may ever hold is bounded here, so a large queueCapacity
  // on a 128k vocabulary is refused instead of ending in bad_alloc or the OOM killer.
  auto slotBytes = [vocabSize](const CaptureConfig& capture) {
    return capture.mode == CaptureMode::full ? static_cast<double>(vocabSize) * sizeof(float)
           : capture.mode == CaptureMode::topK ? static_cast<double>(capture.topK) * 8.0
                                                : 0.0;
  };
  const double perSlot = slotBytes(config.raw) + slotBytes(config.processed);
  const double ringBytes = static_cast<double>(config.queueCapacity) * perSlot;
  if (ringBytes > static_cast<double>(fullLogitsBudgetBytes)) {
    const uint64_t largest = static_cast<uint64_t>(static_cast<double>(fullLogitsBudgetBytes) / perSlot);
    throwCoded(env, "ERR_CAPTURE_BUDGET",
               "captured logits could hold up to queueCapacity (" + std::to_string(config.queueCapacity) +
                   ") × " + std::to_string(static_cast<uint64_t>(perSlot)) + " bytes per slot (vocabulary (" +
                   std::to_string(vocabSize) + ") × 4 bytes per full row, 8 bytes per top-k entry) = " +
                   std::to_string(static_cast<uint64_t>(ringBytes / (1024 * 1024))) + " MiB, over the " +
                   std::to_string(fullLogitsBudgetBytes / (1024 * 1024)) + " MiB budget; use queueCapacity <= " +
                   std::to_string(std::max<uint64_t>(largest, 1)) + ", or capture fewer logits");
  }
  state->events.allocate(config.queueCapacity);

  Napi::Object object = addonData(env).decodeJobConstructor.New({});
  AddonDecodeJob::Unwrap(object)->attach(Value(), state, engine_, loop_);
  engine.submit(state);
  return object;
}

Napi::Value AddonContext::GetSequenceTokens(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DecodeEngine& engine = requireEngine(env);
  const auto tokens = engine.sequenceTokens(info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : -1);
  Napi::Int32Array result = Napi::Int32Array::New(env, tokens.size());
  std::copy(tokens.begin(), tokens.end(), result.Data());
  return result;
}

Napi::Value AddonContext::GetInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DecodeEngine& engine = requireEngine(env);
  Napi::Object result = Napi::Object::New(env);
  result.Set("contextSize", engine.contextSize());
  result.Set("sequenceContextSize", engine.sequenceContextSize());
  result.Set("sequences", engine.sequenceCount());
  result.Set("batchSize", engine.batchSize());
  result.Set("prefillChunkSize", engine.prefillChunkSize());
  result.Set("threads", engine.threads());
  result.Set("hugePages", hugePageAdviceObject(env, hugePageAdvice_));
  return result;
}

Napi::Value AddonContext::GetCounters(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DecodeEngine::Counters counters = requireEngine(env).counters();
  Napi::Object result = Napi::Object::New(env);
  result.Set("liveSequences", counters.liveSequences);
  result.Set("waiting", counters.waiting);
  result.Set("peakLiveSequences", counters.peakLiveSequences);
  result.Set("promptTokensDecoded", static_cast<double>(counters.promptTokensDecoded));
  result.Set("generatedTokensDecoded", static_cast<double>(counters.generatedTokensDecoded));
  result.Set("decodeCalls", static_cast<double>(counters.decodeCalls));
  result.Set("heldWakeUps", static_cast<double>(counters.heldWakeUps));
  result.Set("capturedRowsAllocated", static_cast<double>(counters.capturedRowsAllocated));
  result.Set("capturedRowsKept", static_cast<double>(counters.capturedRowsKept));
  result.Set("capturedRowsHandedOut", static_cast<double>(counters.capturedRowsHandedOut));
  return result;
}

Napi::Value AddonContext::ResetPeakCounter(const Napi::CallbackInfo& info) {
  requireEngine(info.Env()).resetPeak();
  return info.Env().Undefined();
}

Napi::Value AddonContext::Dispose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DisposeEngine(env, engine_);
  // The decode thread is joined and pending pulls are settled: nothing notifies through the function
  // any more, so release it now, while Node is fully alive, rather than in the destructor.
  if (loop_) loop_->close();
  return env.Undefined();
}
}  // namespace tessera

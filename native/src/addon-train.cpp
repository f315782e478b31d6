#include "addon-train.h"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "addon-logging.h"
#include "addon-support.h"
#include "ggml-backend.h"
#include "ggml-opt.h"
#include "llama.h"

namespace tessera {
namespace {

// Everything copied out of JavaScript on the main thread (the "baton"); the worker reads only this.
struct TrainOptions {
  std::string modelPath;
  std::string outputPath;
  int32_t sequenceLength = 256;
  std::vector<int32_t> train;       // rows of sequenceLength + 1 tokens: input = row[0..L), label = row[1..L]
  std::vector<int32_t> validation;  // same layout
  int64_t shardSize = 64;           // datapoints per llama_opt_epoch call
  int32_t epochs = 1;
  int32_t threads = 1;
  uint32_t seed = 1;
  bool shuffle = true;
  bool validateFirst = false;
  double learningRate = 1e-3;
  double minLearningRate = 0;
  int64_t warmupSteps = 0;
  std::string schedule = "cosine";  // constant | linear | cosine (after the warm-up)
  double weightDecay = 0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  bool clearGradients = true;  // see optimizerParams; false reproduces llama.cpp's own behaviour
  bool trainEmbeddings = true;  // see findEmbeddings; false leaves token_embd.weight as llama.cpp does
};

enum class ProgressKind { Step, Shard, Validation };

struct ProgressEvent {
  ProgressKind kind;
  int32_t epoch;
  int64_t shard;
  int64_t shardCount;
  int64_t step;
  int64_t totalSteps;
  double loss;
  double accuracy;
  double tokensPerSecond;
  double learningRate;
  double elapsedSeconds;
};

struct TrainSummary {
  int64_t steps = 0;
  int32_t epochsCompleted = 0;
  int64_t shardsCompleted = 0;
  bool stopped = false;
  double trainLoss = NAN;
  double trainAccuracy = NAN;
  double initialValidationLoss = NAN;
  double initialValidationAccuracy = NAN;
  double validationLoss = NAN;
  double validationAccuracy = NAN;
  double seconds = 0;
  double tokensPerSecond = 0;
  int64_t trainedTensors = 0;
  int64_t trainedParameters = 0;
};

class TrainWorker;
// llama_opt_epoch's callback and ggml-opt's optimizer-parameter callback are plain function pointers
// (the first without user data); each worker thread trains one model, so a thread-local finds it.
thread_local TrainWorker* currentWorker = nullptr;

class TrainWorker : public Napi::AsyncWorker {
 public:
  TrainWorker(Napi::Env env, TrainOptions options, std::shared_ptr<std::atomic<bool>> stopFlag, Napi::Value onProgress)
      : Napi::AsyncWorker(env, "tessera:trainModel"),
        deferred_(Napi::Promise::Deferred::New(env)),
        options_(std::move(options)),
        stopFlag_(std::move(stopFlag)) {
    if (onProgress.IsFunction()) {
      progress_ = Napi::ThreadSafeFunction::New(env, onProgress.As<Napi::Function>(), "tessera:trainProgress", 0, 1);
      hasProgress_ = true;
    }
  }

  ~TrainWorker() override {
    if (context_ != nullptr) llama_free(context_);
    if (model_ != nullptr) llama_model_free(model_);
  }

  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override {
    currentWorker = this;
    try {
      run();
    } catch (const std::exception& error) {
      fail("ERR_TRAINING", std::string("llama.cpp failed while training: ") + error.what());
    } catch (...) {
      fail("ERR_TRAINING", "llama.cpp failed while training (unknown exception)");
    }
    currentWorker = nullptr;
  }

  void OnOK() override {
    releaseProgress();
    settleSafely(deferred_, [this] {
      Napi::Env env = Env();
      Napi::Object result = Napi::Object::New(env);
      result.Set("steps", Napi::Number::New(env, static_cast<double>(summary_.steps)));
      result.Set("epochsCompleted", Napi::Number::New(env, summary_.epochsCompleted));
      result.Set("shardsCompleted", Napi::Number::New(env, static_cast<double>(summary_.shardsCompleted)));
      result.Set("stopped", Napi::Boolean::New(env, summary_.stopped));
      result.Set("trainLoss", Napi::Number::New(env, summary_.trainLoss));
      result.Set("trainAccuracy", Napi::Number::New(env, summary_.trainAccuracy));
      result.Set("initialValidationLoss", Napi::Number::New(env, summary_.initialValidationLoss));
      result.Set("initialValidationAccuracy", Napi::Number::New(env, summary_.initialValidationAccuracy));
      result.Set("validationLoss", Napi::Number::New(env, summary_.validationLoss));
      result.Set("validationAccuracy", Napi::Number::New(env, summary_.validationAccuracy));
      result.Set("seconds", Napi::Number::New(env, summary_.seconds));
      result.Set("tokensPerSecond", Napi::Number::New(env, summary_.tokensPerSecond));
      result.Set("trainedTensors", Napi::Number::New(env, static_cast<double>(summary_.trainedTensors)));
      result.Set("trainedParameters", Napi::Number::New(env, static_cast<double>(summary_.trainedParameters)));
      deferred_.Resolve(result);
    });
  }

  void OnError(const Napi::Error& error) override {
    releaseProgress();
    settleSafely(deferred_, [&] { deferred_.Reject(codedError(Env(), code_.c_str(), error.Message()).Value()); });
  }

  // [worker thread] llama_opt_epoch's per-step callback (one optimizer step per datapoint here).
  static void onStep(bool train, ggml_opt_context_t context, ggml_opt_dataset_t, ggml_opt_result_t result, int64_t, int64_t,
                     int64_t) {
    TrainWorker* self = currentWorker;
    if (self == nullptr || !train) return;
    self->optimizer_ = context;
    self->step_++;
    self->tokensDone_ += self->options_.sequenceLength;
    const auto now = std::chrono::steady_clock::now();
    if (now - self->lastReport_ < std::chrono::milliseconds(200)) return;
    self->lastReport_ = now;
    self->report(ProgressKind::Step, result);
  }

  // [worker thread] ggml-opt asks for the optimizer parameters before every optimizer step, after the
  // step's graph is built and before it is computed.
  //
  // It is also where the gradients are cleared, which llama.cpp never does: its graphs are not static,
  // so ggml-opt always accumulates gradients (grad_acc += grad) into persistent tensors, and the reset
  // that should zero them before a step (ggml_graph_reset(gb_grad) in ggml_opt_alloc, only for
  // opt_period > 1) runs on a graph pointer that ggml_opt_eval has already set to null. They are zeroed
  // once, at the first step; after that every AdamW step sees the sum of all gradients so far. That sum
  // is why training stalled at ~16-19% next-token accuracy and the loss rose again (issue 16). The
  // accumulators of this step's graph are reachable here (ggml_opt_grad_acc reads gb_opt, which is set
  // until the compute), and zeroing them leaves exactly this step's gradient after the backward pass.
  static ggml_opt_optimizer_params optimizerParams(void* data) {
    auto* self = static_cast<TrainWorker*>(data);
    if (self->options_.clearGradients && self->optimizer_ != nullptr) {
      for (ggml_tensor* parameter : self->parameters_) {
        ggml_tensor* accumulator = ggml_opt_grad_acc(self->optimizer_, parameter);
        if (accumulator != nullptr) ggml_backend_tensor_memset(accumulator, 0, 0, ggml_nbytes(accumulator));
      }
    }
    ggml_opt_optimizer_params params = ggml_opt_get_default_optimizer_params(nullptr);
    // ggml-opt asserts alpha > 0 (an abort of the whole process); a rate the warm-up or the decay scales
    // below the smallest float would round to 0. TypeScript refuses such rates; this is the last guard.
    params.adamw.alpha = std::max(static_cast<float>(self->learningRateAt(self->step_)), FLT_MIN);
    params.adamw.beta1 = static_cast<float>(self->options_.beta1);
    params.adamw.beta2 = static_cast<float>(self->options_.beta2);
    params.adamw.wd = static_cast<float>(self->options_.weightDecay);
    return params;
  }

  // [worker thread] The context's eval callback during the warm-up decode: it finds the token-embedding
  // weight as the source of the graph's GET_ROWS node. llama_context::opt_init never offers that tensor to
  // the parameter filter (its "FIXME"), and llama.h has no other way to reach a model's tensors; with the
  // pointer, ggml_set_param marks it like any other weight, and GET_ROWS has a backward pass
  // (GET_ROWS_BACK), so the embeddings train. Asks for no tensor's data, so the decode runs as usual.
  static bool findEmbeddings(ggml_tensor* tensor, bool ask, void* data) {
    auto* self = static_cast<TrainWorker*>(data);
    if (ask && self->embeddings_ == nullptr && tensor->op == GGML_OP_GET_ROWS && tensor->src[0] != nullptr &&
        std::strcmp(tensor->src[0]->name, "token_embd.weight") == 0) {
      self->embeddings_ = tensor->src[0];
    }
    return false;
  }

  // [worker thread] llama_opt_init's tensor filter: every weight of the model (llama.cpp itself leaves
  // the token embeddings out, see the FIXME in llama_context::opt_init), counted for the summary.
  static bool paramFilter(const ggml_tensor* tensor, void* data) {
    auto* self = static_cast<TrainWorker*>(data);
    if (tensor->type != GGML_TYPE_F32) return false;  // OUT_PROD has no backward pass for quantized weights
    // llama.cpp skips these after asking (and the output of a tied model is token_embd.weight itself).
    if (std::strcmp(tensor->name, "token_embd.weight") == 0 || std::strcmp(tensor->name, "rope_freqs.weight") == 0) {
      return true;
    }
    self->summary_.trainedTensors++;
    self->summary_.trainedParameters += ggml_nelements(tensor);
    // The model's own weight tensors are the parameter nodes of every training graph.
    self->parameters_.push_back(const_cast<ggml_tensor*>(tensor));
    return true;
  }

 private:
  double learningRateAt(int64_t step) const {
    const double peak = options_.learningRate;
    if (options_.warmupSteps > 0 && step < options_.warmupSteps) {
      return peak * static_cast<double>(step + 1) / static_cast<double>(options_.warmupSteps);
    }
    if (options_.schedule == "constant") return peak;
    const double span = static_cast<double>(std::max<int64_t>(1, totalSteps_ - options_.warmupSteps));
    const double progress = std::min(1.0, static_cast<double>(step - options_.warmupSteps) / span);
    const double floor = options_.minLearningRate;
    if (options_.schedule == "linear") return floor + (peak - floor) * (1.0 - progress);
    return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));
  }

  void fail(const char* code, const std::string& message) {
    code_ = code;
    SetError(message);
  }

  void report(ProgressKind kind, ggml_opt_result_t result) {
    if (!hasProgress_) return;
    double loss = NAN, lossUncertainty = NAN, accuracy = NAN, accuracyUncertainty = NAN;
    if (result != nullptr) {
      ggml_opt_result_loss(result, &loss, &lossUncertainty);
      ggml_opt_result_accuracy(result, &accuracy, &accuracyUncertainty);
    }
    const double elapsed = secondsSince(started_);
    auto* event = new ProgressEvent{kind,
                                    epoch_,
                                    shard_,
                                    shardCount_,
                                    step_,
                                    totalSteps_,
                                    loss,
                                    accuracy,
                                    elapsed > 0 ? static_cast<double>(tokensDone_) / elapsed : 0,
                                    learningRateAt(step_),
                                    elapsed};
    if (progress_.NonBlockingCall(event, &TrainWorker::deliver) != napi_ok) delete event;
  }

  // [JavaScript thread] An exception escaping a thread-safe call aborts the process, so none does: a
  // throwing user callback is rethrown as an uncaught exception of its own environment.
  static void deliver(Napi::Env env, Napi::Function callback, ProgressEvent* event) {
    std::unique_ptr<ProgressEvent> owned(event);
    if (env == nullptr) return;
    try {
      Napi::Object object = Napi::Object::New(env);
      const char* kind = event->kind == ProgressKind::Step ? "step" : event->kind == ProgressKind::Shard ? "shard" : "validation";
      object.Set("kind", Napi::String::New(env, kind));
      object.Set("epoch", Napi::Number::New(env, event->epoch));
      object.Set("shard", Napi::Number::New(env, static_cast<double>(event->shard)));
      object.Set("shardCount", Napi::Number::New(env, static_cast<double>(event->shardCount)));
      object.Set("step", Napi::Number::New(env, static_cast<double>(event->step)));
      object.Set("totalSteps", Napi::Number::New(env, static_cast<double>(event->totalSteps)));
      object.Set("loss", Napi::Number::New(env, event->loss));
      object.Set("accuracy", Napi::Number::New(env, event->accuracy));
      object.Set("tokensPerSecond", Napi::Number::New(env, event->tokensPerSecond));
      object.Set("learningRate", Napi::Number::New(env, event->learningRate));
      object.Set("elapsedSeconds", Napi::Number::New(env, event->elapsedSeconds));
      callback.Call({object});
    } catch (const Napi::Error& error) {
      try {
        error.ThrowAsJavaScriptException();
      } catch (const std::exception&) {
      }
    } catch (const std::exception&) {
    }
  }

  static double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void releaseProgress() {
    if (hasProgress_) {
      progress_.Release();
      hasProgress_ = false;
    }
  }

  bool checkTokens(const std::vector<int32_t>& rows, const char* name) {
    const int32_t vocabularySize = llama_vocab_n_tokens(llama_model_get_vocab(model_));
    for (size_t index = 0; index < rows.size(); index++) {
      if (rows[index] < 0 || rows[index] >= vocabularySize) {
        fail("ERR_TOKEN_OUT_OF_RANGE", std::string(name) + " token " + std::to_string(rows[index]) + " at index " +
                                           std::to_string(index) + " is outside the model's vocabulary [0, " +
                                           std::to_string(vocabularySize) + ")");
        return false;
      }
    }
    return true;
  }

  // Rows [first, first + count) of `order` into a dataset: inputs row[0..L), labels row[1..L].
  ggml_opt_dataset_t makeDataset(const std::vector<int32_t>& rows, const std::vector<int64_t>& order, int64_t first,
                                 int64_t count) const {
    const int64_t length = options_.sequenceLength;
    ggml_opt_dataset_t dataset = ggml_opt_dataset_init(GGML_TYPE_I32, GGML_TYPE_I32, length, length, count, 1);
    auto* data = static_cast<int32_t*>(ggml_opt_dataset_data(dataset)->data);
    auto* labels = static_cast<int32_t*>(ggml_opt_dataset_labels(dataset)->data);
    for (int64_t index = 0; index < count; index++) {
      const int32_t* row = rows.data() + order[static_cast<size_t>(first + index)] * (length + 1);
      std::memcpy(data + index * length, row, static_cast<size_t>(length) * sizeof(int32_t));
      std::memcpy(labels + index * length, row + 1, static_cast<size_t>(length) * sizeof(int32_t));
    }
    return dataset;
  }

  // Validation loss and accuracy over every validation row (a forward pass only).
  bool validate(double* loss, double* accuracy) {
    const int64_t count = static_cast<int64_t>(options_.validation.size()) / (options_.sequenceLength + 1);
    if (count == 0) return false;
    std::vector<int64_t> order(static_cast<size_t>(count));
    for (int64_t index = 0; index < count; index++) order[static_cast<size_t>(index)] = index;
    ggml_opt_dataset_t dataset = makeDataset(options_.validation, order, 0, count);
    ggml_opt_result_t result = ggml_opt_result_init();
    llama_opt_epoch(context_, dataset, nullptr, result, 0, nullptr, nullptr);
    double uncertainty = NAN;
    ggml_opt_result_loss(result, loss, &uncertainty);
    ggml_opt_result_accuracy(result, accuracy, &uncertainty);
    report(ProgressKind::Validation, result);
    ggml_opt_result_free(result);
    ggml_opt_dataset_free(dataset);
    return true;
  }

  void run() {
    started_ = std::chrono::steady_clock::now();
    clearRecentErrors();
    llama_model_params modelParams = llama_model_default_params();
    modelParams.n_gpu_layers = 0;
    modelParams.load_mode = LLAMA_LOAD_MODE_NONE;  // the optimizer writes into the weights: no read-only mapping
    model_ = llama_model_load_from_file(options_.modelPath.c_str(), modelParams);
    if (model_ == nullptr) {
      const std::string details = takeRecentErrors();
      return fail("ERR_MODEL_LOAD",
                  "llama.cpp could not load " + options_.modelPath + (details.empty() ? std::string() : ": " + details));
    }
    if (!checkTokens(options_.train, "training") || !checkTokens(options_.validation, "validation")) return;

    const uint32_t length = static_cast<uint32_t>(options_.sequenceLength);
    llama_context_params contextParams = llama_context_default_params();
    contextParams.n_ctx = length;
    contextParams.n_batch = length;
    contextParams.n_ubatch = length;
    contextParams.n_seq_max = 1;
    contextParams.n_threads = options_.threads;
    contextParams.n_threads_batch = options_.threads;
    contextParams.type_k = GGML_TYPE_F32;  // OUT_PROD has no F16 backward pass
    contextParams.type_v = GGML_TYPE_F32;
    contextParams.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;  // FLASH_ATTN_EXT has no backward pass
    if (options_.trainEmbeddings) {
      contextParams.cb_eval = &TrainWorker::findEmbeddings;
      contextParams.cb_eval_user_data = this;
    }
    context_ = llama_init_from_model(model_, contextParams);
    if (context_ == nullptr) {
      const std::string details = takeRecentErrors();
      return fail("ERR_CONTEXT_CREATE", "llama.cpp could not create a training context of " + std::to_string(length) +
                                            " tokens" + (details.empty() ? std::string() : ": " + details));
    }

    // The thread trap: ggml-opt computes its graphs on the CPU backend with whatever thread count that
    // backend holds, and only an ordinary decode applies the context's n_threads to it. Without this
    // decode the graphs run on ggml's default of 4 threads, and on a 2-core machine 98% of a step is
    // spent spinning in ggml_barrier (~1.7 s per step instead of ~20 ms).
    {
      const llama_vocab* vocab = llama_model_get_vocab(model_);
      llama_token token = llama_vocab_bos(vocab);
      if (token < 0) token = 0;
      llama_batch batch = llama_batch_get_one(&token, 1);
      if (llama_decode(context_, batch) != 0) return fail("ERR_TRAINING", "the warm-up decode before training failed");
      llama_memory_clear(llama_get_memory(context_), true);
    }

    llama_opt_params optParams{};
    optParams.n_ctx_train = 0;  // = the context size
    optParams.param_filter = &TrainWorker::paramFilter;
    optParams.param_filter_ud = this;
    optParams.get_opt_pars = &TrainWorker::optimizerParams;
    optParams.get_opt_pars_ud = this;
    optParams.optimizer_type = GGML_OPT_OPTIMIZER_TYPE_ADAMW;
    llama_opt_init(context_, model_, optParams);
    // After opt_init, before the first training graph is built: ggml builds a parameter's gradient only
    // when the flag is set when the graph is built, and llama.cpp builds each step's graph anew.
    if (embeddings_ != nullptr && embeddings_->type == GGML_TYPE_F32) {
      ggml_set_param(embeddings_);
      summary_.trainedTensors++;
      summary_.trainedParameters += ggml_nelements(embeddings_);
      parameters_.push_back(embeddings_);
    }

    const int64_t rowCount = static_cast<int64_t>(options_.train.size()) / (length + 1);
    shardCount_ = rowCount == 0 ? 0 : (rowCount + options_.shardSize - 1) / options_.shardSize;
    totalSteps_ = rowCount * options_.epochs;

    if (options_.validateFirst) validate(&summary_.initialValidationLoss, &summary_.initialValidationAccuracy);

    // The order of the rows: a Fisher-Yates shuffle per epoch from mt19937 (whose output the C++
    // standard fixes), so a seed gives the same order with every standard library.
    std::mt19937 random(options_.seed);
    std::vector<int64_t> order(static_cast<size_t>(rowCount));
    for (int64_t index = 0; index < rowCount; index++) order[static_cast<size_t>(index)] = index;

    ggml_opt_result_t result = ggml_opt_result_init();
    for (epoch_ = 0; epoch_ < options_.epochs && !summary_.stopped; epoch_++) {
      if (options_.shuffle) {
        for (int64_t index = rowCount - 1; index > 0; index--) {
          const int64_t other = static_cast<int64_t>(random() % static_cast<uint64_t>(index + 1));
          std::swap(order[static_cast<size_t>(index)], order[static_cast<size_t>(other)]);
        }
      }
      ggml_opt_result_reset(result);
      for (shard_ = 0; shard_ < shardCount_; shard_++) {
        if (stopFlag_->load()) {
          summary_.stopped = true;
          break;
        }
        const int64_t first = shard_ * options_.shardSize;
        const int64_t count = std::min(options_.shardSize, rowCount - first);
        ggml_opt_dataset_t dataset = makeDataset(options_.train, order, first, count);
        llama_opt_epoch(context_, dataset, result, nullptr, count, &TrainWorker::onStep, nullptr);
        ggml_opt_dataset_free(dataset);
        summary_.shardsCompleted++;
        double uncertainty = NAN;
        ggml_opt_result_loss(result, &summary_.trainLoss, &uncertainty);
        ggml_opt_result_accuracy(result, &summary_.trainAccuracy, &uncertainty);
        report(ProgressKind::Shard, result);
      }
      if (!summary_.stopped) summary_.epochsCompleted++;
      // After a stop too, so the checkpoint that is kept has its figure.
      validate(&summary_.validationLoss, &summary_.validationAccuracy);
    }
    ggml_opt_result_free(result);
    summary_.steps = step_;

    const double trainingSeconds = secondsSince(started_);
    summary_.seconds = trainingSeconds;
    summary_.tokensPerSecond = trainingSeconds > 0 ? static_cast<double>(tokensDone_) / trainingSeconds : 0;
    llama_model_save_to_file(model_, options_.outputPath.c_str());
  }

  Napi::Promise::Deferred deferred_;
  TrainOptions options_;
  std::shared_ptr<std::atomic<bool>> stopFlag_;
  Napi::ThreadSafeFunction progress_;
  bool hasProgress_ = false;
  std::string code_ = "ERR_TRAINING";
  llama_model* model_ = nullptr;      // [worker thread] until the worker is destroyed
  llama_context* context_ = nullptr;  // [worker thread]
  ggml_opt_context_t optimizer_ = nullptr;  // [worker thread] llama.cpp's, seen in the first step's callback
  std::vector<ggml_tensor*> parameters_;    // [worker thread] the weights llama_opt_init marked trainable
  ggml_tensor* embeddings_ = nullptr;        // [worker thread] token_embd.weight, found by findEmbeddings
  // [worker thread] progress counters
  int32_t epoch_ = 0;
  int64_t shard_ = 0;
  int64_t shardCount_ = 0;
  int64_t step_ = 0;
  int64_t totalSteps_ = 0;
  int64_t tokensDone_ = 0;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point lastReport_;
  TrainSummary summary_;
};

std::vector<int32_t> tokenRows(Napi::Env env, const Napi::Object& options, const char* name, int32_t length) {
  Napi::Value value = options.Get(name);
  if (value.IsUndefined()) return {};
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", std::string("trainModel: ") + name + " must be an Int32Array");
  }
  Napi::Int32Array array = value.As<Napi::Int32Array>();
  if (array.ElementLength() % static_cast<size_t>(length + 1) != 0) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", std::string("trainModel: ") + name + " holds " +
                                                std::to_string(array.ElementLength()) +
                                                " tokens, not a whole number of rows of sequenceLength + 1 = " +
                                                std::to_string(length + 1));
  }
  return std::vector<int32_t>(array.Data(), array.Data() + array.ElementLength());
}
}  // namespace

Napi::Value TrainModel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsObject()) throwCoded(env, "ERR_INVALID_ARGUMENT", "trainModel expects an options object");
  Napi::Object object = info[0].As<Napi::Object>();
  TrainOptions options;
  options.modelPath = stringOption(object, "modelPath", "");
  options.outputPath = stringOption(object, "outputPath", "");
  if (options.modelPath.empty() || options.outputPath.empty()) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "trainModel needs modelPath and outputPath");
  }
  options.sequenceLength = static_cast<int32_t>(numberOption(object, "sequenceLength", 256));
  // llama.cpp pads every context to a multiple of 256 and trains on whole contexts.
  if (options.sequenceLength < 256 || options.sequenceLength % 256 != 0 || options.sequenceLength > 8192) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "trainModel: sequenceLength must be a multiple of 256 in [256, 8192]");
  }
  options.train = tokenRows(env, object, "train", options.sequenceLength);
  options.validation = tokenRows(env, object, "validation", options.sequenceLength);
  options.shardSize = std::max<int64_t>(1, static_cast<int64_t>(numberOption(object, "shardSize", 64)));
  options.epochs = std::max<int32_t>(0, static_cast<int32_t>(numberOption(object, "epochs", 1)));
  options.threads = std::max<int32_t>(1, static_cast<int32_t>(numberOption(object, "threads", 1)));
  options.seed = static_cast<uint32_t>(numberOption(object, "seed", 1));
  options.shuffle = booleanOption(object, "shuffle", true);
  options.validateFirst = booleanOption(object, "validateFirst", false);
  options.learningRate = numberOption(object, "learningRate", 1e-3);
  options.minLearningRate = numberOption(object, "minLearningRate", 0);
  options.warmupSteps = static_cast<int64_t>(numberOption(object, "warmupSteps", 0));
  options.schedule = stringOption(object, "schedule", "cosine");
  options.weightDecay = numberOption(object, "weightDecay", 0);
  options.beta1 = numberOption(object, "beta1", 0.9);
  options.beta2 = numberOption(object, "beta2", 0.999);
  options.clearGradients = booleanOption(object, "clearGradients", true);
  options.trainEmbeddings = booleanOption(object, "trainEmbeddings", true);
  // ggml's AdamW asserts alpha > 0 (an abort): a schedule must never reach 0 at a step it runs.
  if (!(options.learningRate > 0) || options.minLearningRate < 0 || options.minLearningRate > options.learningRate ||
      options.weightDecay < 0 || options.weightDecay > 1 || options.beta1 < 0 || options.beta1 > 1 ||
      options.beta2 < 0 || options.beta2 > 1) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "trainModel: learning rates, weight decay or betas out of range");
  }
  if (options.minLearningRate == 0) options.minLearningRate = options.learningRate * 1e-3;

  auto stopFlag = std::make_shared<std::atomic<bool>>(false);
  auto* worker = new TrainWorker(env, std::move(options), stopFlag, info[1]);
  Napi::Object result = Napi::Object::New(env);
  result.Set("promise", worker->promise());
  auto* flagHolder = new std::shared_ptr<std::atomic<bool>>(stopFlag);
  Napi::Function stop = Napi::Function::New(
      env,
      [](const Napi::CallbackInfo& callInfo) {
        auto* holder = static_cast<std::shared_ptr<std::atomic<bool>>*>(callInfo.Data());
        (*holder)->store(true);
        return callInfo.Env().Undefined();
      },
      "stop", flagHolder);
  stop.AddFinalizer([](Napi::Env, std::shared_ptr<std::atomic<bool>>* holder) { delete holder; }, flagHolder);
  result.Set("stop", stop);
  worker->Queue();
  return result;
}
}  // namespace tessera

#pragma once
#include <napi.h>

#include <memory>
#include <vector>

#include "addon-support.h"
#include "decode-engine.h"
#include "decode-job.h"
#include "pull-waiter.h"

namespace tessera {

// releaseRows(arrays): detaches the buffer of each Float32Array given, so that a captured row goes back to
// its context's pool now instead of when the garbage collector finds its array; returns how many it
// detached (see addon-decode-job.cpp).
Napi::Value ReleaseRows(const Napi::CallbackInfo& info);

// JavaScript handle of one job: pull batches of events, abort, read stats.
class AddonDecodeJob : public Napi::ObjectWrap<AddonDecodeJob>, public PullWaiter {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit AddonDecodeJob(const Napi::CallbackInfo& info);
  ~AddonDecodeJob() override;

  void attach(Napi::Object context, std::shared_ptr<DecodeJob> state, std::shared_ptr<DecodeEngine> engine,
              std::shared_ptr<LoopKeeper> loop);
  // Settles a waiting pull if events or the end arrived (JavaScript thread).
  void resolvePending(Napi::Env env) override;
  // Whether `value` is an object this class constructed. InstanceOf is not enough: any object can be given
  // this class's prototype (a context with it was unwrapped as a job: a type confusion that ASan caught).
  static bool IsJob(const Napi::Value& value);
  // The shared state and engine (null once released): what another job's `after` option refers to.
  const std::shared_ptr<DecodeJob>& state() const { return state_; }
  const std::shared_ptr<DecodeEngine>& engine() const { return engine_; }

 private:
  Napi::Value Pull(const Napi::CallbackInfo& info);
  Napi::Value Abort(const Napi::CallbackInfo& info);
  Napi::Value GetStats(const Napi::CallbackInfo& info);
  Napi::Value GetPromptLogprobs(const Napi::CallbackInfo& info);
  Napi::Object takeBatch(Napi::Env env, size_t maxEvents);
  // Resolves `deferred` with takeBatch's batch, or rejects it with what made that fail.
  void settle(Napi::Env env, Napi::Promise::Deferred& deferred, size_t maxEvents);
  // A pull that failed after taking `count` events: drops them and stops the generation (takeBatch).
  void failedPull(size_t count, const char* code);
  // Computes what the decode thread left to the pull (DecodeJob::logSumExpOnPull) in the slots taken.
  void completeDeferred(EventRing& events, const EventRing::Unread& unread);
  DecodeJob& requireState(Napi::Env env);

  Napi::ObjectReference context_;  // keeps the context (and its decode thread) alive while this handle lives
  std::shared_ptr<DecodeJob> state_;
  std::shared_ptr<DecodeEngine> engine_;
  std::shared_ptr<LoopKeeper> loop_;
  std::unique_ptr<Napi::Promise::Deferred> pending_;
  size_t pendingMaxEvents_ = 0;
  std::vector<float> deferredBlockMaxima_;  // summarizeRow's scratch for completeDeferred
};
}  // namespace tessera

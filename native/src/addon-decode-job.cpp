#include "addon-decode-job.h"

#include "test-hooks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace tessera {
namespace {

// Marks the buffer of every row handed to JavaScript (napi_type_tag_object), so that releaseRows detaches
// only those: detaching any other buffer whole (a slab of Node's Buffer pool, which every small Buffer
// shares) would break code that has nothing to do with logits.
constexpr napi_type_tag capturedRowTypeTag = {0x3c1f5a7e92d04b68ULL, 0xa4e8b2d7c6190f35ULL};

// A Float32Array JavaScript allocates, with a copy of the row (the row stays where it was).
Napi::Float32Array copiedRow(Napi::Env env, const float* row, size_t floats) {
  Napi::Float32Array copy = Napi::Float32Array::New(env, floats);
  std::memcpy(copy.Data(), row, floats * sizeof(float));
  copy.ArrayBuffer().TypeTag(&capturedRowTypeTag);
  return copy;
}

// An event's row for JavaScript. Handed over without a copy (`source` is moved into the array, whose
// finalizer gives it back to the pool) while the pool allows another row out (RowPool::tryHandOut);
// otherwise, or where the runtime allows no external buffers (napi_no_external_buffers_allowed: Electron's
// V8 memory cage), a copy, and `source` stays. With `copyFirst` the row handed over is a copy of `source`
// in another pooled row (the processed row of a slot whose processed row is its raw one).
Napi::Value eventRow(Napi::Env env, PooledRow& source, RowPool& pool, bool copyFirst) {
  const size_t floats = pool.floats();
  if (!pool.tryHandOut()) return copiedRow(env, source.get(), floats);
  auto* owner = new PooledRow();
  try {
    if (copyFirst) {
      *owner = pool.take();
      std::memcpy(owner->get(), source.get(), floats * sizeof(float));
    } else {
      *owner = std::move(source);
    }
  } catch (...) {
    delete owner;
    pool.returnedFromJavaScript();
    throw;
  }
  float* data = owner->get();
  napi_value buffer;
  const napi_status status = napi_create_external_arraybuffer(
      env, data, floats * sizeof(float),
      [](napi_env, void*, void* hint) {
        auto* row = static_cast<PooledRow*>(hint);
        row->get_deleter().pool->returnedFromJavaScript();
        delete row;
      },
      owner, &buffer);
  if (status == napi_ok) {
    // The tag may throw (an exception pending from a terminating Worker): the buffer exists by then, so its
    // finalizer, not this function, gives the row back.
    Napi::ArrayBuffer arrayBuffer(env, buffer);
    arrayBuffer.TypeTag(&capturedRowTypeTag);
    return Napi::Float32Array::New(env, floats, arrayBuffer, 0);
  }
  if (status == napi_no_external_buffers_allowed || status == napi_pending_exception) {
    // Refused before anything was created (a runtime without external buffers, or an exception already
    // pending: a Worker being terminated), so nothing else will free `owner`: the row goes back where it
    // came from, and the copy below (which throws if an exception is pending).
    if (!copyFirst) source = std::move(*owner);
    delete owner;
    pool.returnedFromJavaScript();
    return copiedRow(env, source.get(), floats);
  }
  // Any other failure may come after Node registered the finalizer, which would then free `owner`
  // itself: leave it to that rather than risk freeing it twice. The slot lost its row; the pull fails.
  throwCoded(env, "ERR_NATIVE_EXCEPTION",
             "Node could not create an array for a captured logits row (napi status " + std::to_string(status) + ")");
}

// The columns of one capture kind. Full rows are moved out of the slots (see below), so the processed
// columns must be built before the raw ones.
Napi::Object captureColumns(Napi::Env env, EventRing& events, const EventRing::Unread& unread,
                            const CaptureConfig& capture, bool raw, bool withCutBy, RowPool* pool) {
  Napi::Object columns = Napi::Object::New(env);
  const size_t count = unread.count;
  if (capture.mode == CaptureMode::topK) {
    const size_t k = static_cast<size_t>(capture.topK);
    Napi::Int32Array ids = Napi::Int32Array::New(env, count * k);
    Napi::Float32Array logits = Napi::Float32Array::New(env, count * k);
    Napi::Float32Array chosen = Napi::Float32Array::New(env, count);
    Napi::Float32Array logSumExp = Napi::Float32Array::New(env, count);
    for (size_t index = 0; index < count; index++) {
      const TopKCapture& source = raw ? events.at(unread, index).raw : events.at(unread, index).processed;
      std::memcpy(ids.Data() + index * k, source.ids.data(), k * sizeof(int32_t));
      std::memcpy(logits.Data() + index * k, source.logits.data(), k * sizeof(float));
      chosen[index] = source.chosenLogit;
      logSumExp[index] = source.logSumExp;
    }
    columns.Set("topK", Napi::Number::New(env, static_cast<double>(k)));
    columns.Set("ids", ids);
    columns.Set("logits", logits);
    columns.Set("chosenLogits", chosen);
    columns.Set("logSumExp", logSumExp);
    if (withCutBy) {
      // recordCutBy: per raw top-k entry, the SamplerStage that removed it (0 = none), aligned with ids.
      Napi::Uint8Array cutBy = Napi::Uint8Array::New(env, count * k);
      for (size_t index = 0; index < count; index++) {
        const std::vector<uint8_t>& source = events.at(unread, index).cutBy;
        // An empty vector's data() may be null, and memcpy from null is undefined even for 0 bytes.
        if (!source.empty()) std::memcpy(cutBy.Data() + index * k, source.data(), std::min(source.size(), k));
      }
      columns.Set("cutBy", cutBy);
    }
  } else if (capture.mode == CaptureMode::full) {
    // One Float32Array per event over the slot's own row, which goes to JavaScript with it: no copy, and
    // no fresh memory per batch (row-pool.h, eventRow). Views stay valid however long the caller keeps
    // them; the row returns to the pool when the garbage collector frees the array. The processed row of a
    // slot whose processed row is its raw one is a copy, so the two stay separate arrays (processed
    // columns are built before the raw ones take the row).
    Napi::Array rows = Napi::Array::New(env, count);
    for (size_t index = 0; index < count; index++) {
      EventSlot& slot = events.at(unread, index);
      Napi::Value row = raw                       ? eventRow(env, slot.rawFull, *pool, false)
                        : slot.processedFullIsRaw ? eventRow(env, slot.rawFull, *pool, true)
                                                  : eventRow(env, slot.processedFull, *pool, false);
      rows.Set(static_cast<uint32_t>(index), row);
    }
    columns.Set("fullRows", rows);
    Napi::Float32Array chosen = Napi::Float32Array::New(env, count);
    Napi::Float32Array logSumExp = Napi::Float32Array::New(env, count);
    for (size_t index = 0; index < count; index++) {
      const EventSlot& slot = events.at(unread, index);
      chosen[index] = raw ? slot.raw.chosenLogit : slot.processed.chosenLogit;
      logSumExp[index] = raw ? slot.raw.logSumExp : slot.processed.logSumExp;
    }
    columns.Set("chosenLogits", chosen);
    columns.Set("logSumExp", logSumExp);
  }
  return columns;
}

}  // namespace

// A kept full capture's rows came back to the pool only when V8 collected their arrays, which it did during a
// later generation: that generation then copied or allocated fresh rows while decoding, and a 1B model's
// full captures at 2 threads on 2 vCPUs cost 0.95x of off instead of 0.98x (docs/benchmarks.md, "Round
// nine"). Detaching the buffer frees its backing store at once: Node then runs the row's finalizer above on
// the event loop's next turn, which gives the row back. Every view of a detached buffer reads as empty, so
// nothing can read the row after it is reused. Rows copied past the pool's hand-out limit are detached too
// (their memory is then the collector's to free at once). Only the rows this addon handed out are: other
// entries (not typed arrays, or arrays over any other buffer) and buffers already detached are skipped.
Napi::Value ReleaseRows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    throwCoded(env, "ERR_INVALID_ARGUMENT", "releaseRows expects an array of Float32Arrays");
  }
  const Napi::Array arrays = info[0].As<Napi::Array>();
  uint32_t detached = 0;
  for (uint32_t index = 0; index < arrays.Length(); index++) {
    const Napi::Value value = arrays.Get(index);
    if (!value.IsTypedArray()) continue;
    const Napi::ArrayBuffer buffer = value.As<Napi::TypedArray>().ArrayBuffer();
    if (!buffer.CheckTypeTag(&capturedRowTypeTag)) continue;
    bool alreadyDetached = false;
    if (napi_is_detached_arraybuffer(env, buffer, &alreadyDetached) != napi_ok || alreadyDetached) continue;
    if (napi_detach_arraybuffer(env, buffer) == napi_ok) detached++;
  }
  return Napi::Number::New(env, detached);
}

Napi::Function AddonDecodeJob::Define(Napi::Env env) {
  return DefineClass(env, "AddonDecodeJob",
                     {
                         InstanceMethod("pull", &AddonDecodeJob::Pull),
                         InstanceMethod("abort", &AddonDecodeJob::Abort),
                         InstanceMethod("getStats", &AddonDecodeJob::GetStats),
                         InstanceMethod("getPromptLogprobs", &AddonDecodeJob::GetPromptLogprobs),
                     });
}

namespace {
// Marks the objects this class wraps (napi_type_tag_object), so an argument can be checked before Unwrap.
constexpr napi_type_tag decodeJobTypeTag = {0x7e55e7a0c1de4a1bULL, 0x9f3b2d61a8c4e5f7ULL};
}  // namespace

AddonDecodeJob::AddonDecodeJob(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AddonDecodeJob>(info) {
  info.This().As<Napi::Object>().TypeTag(&decodeJobTypeTag);
}

bool AddonDecodeJob::IsJob(const Napi::Value& value) {
  return value.IsObject() && value.As<Napi::Object>().CheckTypeTag(&decodeJobTypeTag);
}

AddonDecodeJob::~AddonDecodeJob() {
  if (!state_) return;
  state_->waiter = nullptr;
  // A handle collected before its end means nobody will read it: stop decoding for it.
  if (engine_ && !engine_->isDisposed()) engine_->requestAbort(*state_);
  if (pending_ && loop_) loop_->release(Env());
}

void AddonDecodeJob::attach(Napi::Object context, std::shared_ptr<DecodeJob> state,
                           std::shared_ptr<DecodeEngine> engine, std::shared_ptr<LoopKeeper> loop) {
  context_ = Napi::Persistent(context);
  state_ = std::move(state);
  engine_ = std::move(engine);
  loop_ = std::move(loop);
  state_->waiter = this;
}

DecodeJob& AddonDecodeJob::requireState(Napi::Env env) {
  if (!state_) throwCoded(env, "ERR_INVALID_STATE", "this decode job handle was not created by generate");
  return *state_;
}

Napi::Object AddonDecodeJob::takeBatch(Napi::Env env, size_t maxEvents) {
  DecodeJob& state = *state_;
  const auto& config = state.config;
  EventRing& events = state.events;
  EventRing::Unread unread;
  {
    std::lock_guard<std::mutex> lock(engine_->mutex);
    unread = events.unreadLocked(maxEvents);  // none once the slots were freed (all delivered)
  }
  const size_t count = unread.count;
  // The decode thread may fill the ring and park this sequence while we copy: whether to wake it is
  // decided below, in the section that frees the slots, never from this earlier read.
  testhooks::pause(testhooks::Point::takeBatchGap);

  // These slots are not written by the decode thread until we hand them back below.
  Napi::Object batch;
  try {
    completeDeferred(events, unread);
    Napi::Int32Array tokens = Napi::Int32Array::New(env, count);
    Napi::Float32Array logprobs = Napi::Float32Array::New(env, count);
    Napi::Uint32Array pieceEnds = Napi::Uint32Array::New(env, count);
    size_t pieceBytes = 0;
    for (size_t index = 0; index < count; index++) {
      const EventSlot& slot = events.at(unread, index);
      tokens[index] = slot.token;
      logprobs[index] = slot.logprob;
      pieceBytes += slot.piece.size();
      pieceEnds[index] = static_cast<uint32_t>(pieceBytes);
    }
    Napi::Uint8Array pieces = Napi::Uint8Array::New(env, pieceBytes);
    size_t offset = 0;
    for (size_t index = 0; index < count; index++) {
      const std::string& piece = events.at(unread, index).piece;
      // An empty Uint8Array has no backing store (Data() is null): memcpy must not even see it.
      if (piece.empty()) continue;
      std::memcpy(pieces.Data() + offset, piece.data(), piece.size());
      offset += piece.size();
    }

    batch = Napi::Object::New(env);
    batch.Set("count", Napi::Number::New(env, static_cast<double>(count)));
    batch.Set("tokens", tokens);
    batch.Set("logprobs", logprobs);
    batch.Set("pieceBytes", pieces);
    batch.Set("pieceEnds", pieceEnds);
    RowPool* pool = engine_->rowPool().get();
    if (config.processed.mode != CaptureMode::off) {
      batch.Set("processed", captureColumns(env, events, unread, config.processed, false, false, pool));
    }
    if (config.raw.mode != CaptureMode::off) {
      batch.Set("raw", captureColumns(env, events, unread, config.raw, true, config.recordCutBy, pool));
    }
    if (count > 0 && testhooks::fire(testhooks::Point::throwInTakeBatch)) throw std::bad_alloc();
  } catch (const Napi::Error&) {
    failedPull(count, "ERR_NATIVE_EXCEPTION");
    throw;
  } catch (const std::bad_alloc&) {
    // Fixed strings only from here: the message must not need the memory that just ran out.
    failedPull(count, "ERR_OUT_OF_MEMORY");
    throw codedError(env, "ERR_OUT_OF_MEMORY",
                     "out of memory while handing a batch of events to JavaScript; the generation was stopped and "
                     "the batch is lost. Capture fewer logits (a top k instead of full rows), lower queueCapacity, "
                     "or free memory");
  } catch (const std::exception& error) {
    failedPull(count, "ERR_NATIVE_EXCEPTION");
    std::string message;
    try {
      message = std::string("handing events to JavaScript failed (") + error.what() + "); the generation was stopped";
    } catch (const std::bad_alloc&) {
      throw codedError(env, "ERR_NATIVE_EXCEPTION", error.what());
    }
    throw codedError(env, "ERR_NATIVE_EXCEPTION", message);
  }
  // Why the catches above: part of the batch may be in JavaScript's arrays already (full rows move out of
  // their slots), so its events cannot be read again. failedPull drops them and stops the generation, and
  // the pull fails with a typed error; later pulls see what the decode thread pushed before the stop, and
  // the end. Rethrown as they were, an exception escaped the callback (std::terminate) or left a pending
  // pull never settled.

  bool done;
  bool parked;
  {
    std::lock_guard<std::mutex> lock(engine_->mutex);
    // A full ring at the moment slots are freed is the decode thread's only reason to have parked
    // this sequence (it re-checks under this mutex before it sleeps), so this read cannot miss it.
    parked = events.isFullLocked() && !state.finished;
    events.consumeLocked(count);
    done = state.finished && events.isEmptyLocked();
  }
  // Everything was delivered: the slots (and their full vectors) are not needed any more.
  if (done) events.release();
  if (parked && count > 0) engine_->wake();
  batch.Set("done", Napi::Boolean::New(env, done));
  return batch;
}

void AddonDecodeJob::failedPull(size_t count, const char* code) {
  state_->droppedByPull = code;
  bool parked;
  {
    std::lock_guard<std::mutex> lock(engine_->mutex);
    parked = state_->events.isFullLocked() && !state_->finished;
    state_->events.consumeLocked(count);
  }
  if (!engine_->isDisposed()) engine_->requestAbort(*state_);
  if (parked && count > 0) engine_->wake();
}

void AddonDecodeJob::completeDeferred(EventRing& events, const EventRing::Unread& unread) {
  const DecodeJob& state = *state_;
  if (!state.logSumExpOnPull) return;
  // Each slot is taken by exactly one pull (a failed pull consumes its slots too), so each row is summed once.
  for (size_t index = 0; index < unread.count; index++) {
    EventSlot& slot = events.at(unread, index);
    // The same pass the decode thread would have run (summarizeRow, not a separate two-pass sum), so the
    // value is bit for bit the one computed in place. The row passed the decode thread's finiteness
    // check, so the sum is finite. On this path the processed row is the raw one.
    const RowSummary summary = summarizeRow(slot.rawFull.get(), state.vocabSize, deferredBlockMaxima_);
    slot.raw.logSumExp = summary.logSumExp;
    slot.processed.logSumExp = summary.logSumExp;
    if (state.config.tokenLogprobs) slot.logprob = slot.processed.chosenLogit - summary.logSumExp;
  }
}

Napi::Value AddonDecodeJob::Pull(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DecodeJob& state = requireState(env);
  if (pending_) throwCoded(env, "ERR_PULL_PENDING", "a pull is already waiting; await it before pulling again");
  const size_t maxEvents = info[0].IsNumber() ? static_cast<size_t>(std::max(1.0, info[0].As<Napi::Number>().DoubleValue()))
                                              : state.events.capacity();
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  bool ready;
  {
    std::lock_guard<std::mutex> lock(engine_->mutex);
    ready = !state.events.isEmptyLocked() || state.finished;
    if (!ready) state.pullWaiting = true;
  }
  if (ready) {
    settle(env, deferred, maxEvents);
    return deferred.Promise();
  }
  pending_ = std::make_unique<Napi::Promise::Deferred>(deferred);
  // Whoever awaits the promise may drop the handle itself: keep it (and so the pending pull) alive
  // until the pull settles, or a collected handle would leave the promise pending forever.
  Ref();
  pendingMaxEvents_ = maxEvents;
  loop_->retain(env);
  return deferred.Promise();
}

void AddonDecodeJob::resolvePending(Napi::Env env) {
  if (!pending_) return;
  {
    std::lock_guard<std::mutex> lock(engine_->mutex);
    if (state_->events.isEmptyLocked() && !state_->finished) {
      state_->pullWaiting = true;  // a wake-up raced with an earlier settle; keep waiting
      return;
    }
    state_->pullWaiting = false;
  }
  std::unique_ptr<Napi::Promise::Deferred> deferred = std::move(pending_);
  loop_->release(env);
  Unref();
  settle(env, *deferred, pendingMaxEvents_);
}

void AddonDecodeJob::settle(Napi::Env env, Napi::Promise::Deferred& deferred, size_t maxEvents) {
  // A failed batch rejects the promise on both paths (a ready pull and a waiting one): pull never throws
  // for it, and a waiting pull's promise, already taken from pending_, settles here or never.
  try {
    deferred.Resolve(takeBatch(env, maxEvents));
  } catch (const Napi::Error& error) {
    deferred.Reject(error.Value());
  } catch (...) {
    // Nothing else should leave takeBatch; if it does, reject rather than reach std::terminate.
    deferred.Reject(codedError(env, "ERR_NATIVE_EXCEPTION", "a pull failed; the generation was stopped").Value());
  }
}

Napi::Value AddonDecodeJob::Abort(const Napi::CallbackInfo& info) {
  DecodeJob& state = requireState(info.Env());
  if (!engine_->isDisposed()) engine_->requestAbort(state);
  return info.Env().Undefined();
}

Napi::Value AddonDecodeJob::GetStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DecodeJob& state = requireState(env);
  Napi::Object stats = Napi::Object::New(env);
  std::lock_guard<std::mutex> lock(engine_->mutex);
  auto milliseconds = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  };
  stats.Set("promptTokens", static_cast<double>(state.config.prompt.size()));
  stats.Set("finished", state.finished);
  const char* reason = finishReasonName(state.finishReason);
  stats.Set("finishReason", reason == nullptr ? env.Null() : Napi::String::New(env, reason));
  if (state.errorCode.empty() && state.droppedByPull != nullptr) {
    stats.Set("errorCode", state.droppedByPull);
    stats.Set("errorMessage", "a pull failed while handing a batch of events to JavaScript; that batch was dropped "
                              "and the generation stopped");
  } else {
    stats.Set("errorCode", state.errorCode.empty() ? env.Null() : Napi::String::New(env, state.errorCode));
    stats.Set("errorMessage",
              state.errorMessage.empty() ? env.Null() : Napi::String::New(env, state.errorMessage));
  }
  stats.Set("sequence", state.sequence);
  if (state.finished) {
    // Decode-thread fields are stable once finished (written before the locked finish).
    stats.Set("generatedTokens", state.generated);
    stats.Set("reusedPromptTokens", state.reusedPromptTokens);
    Napi::Array chunks = Napi::Array::New(env, state.prefillChunks.size());
    for (size_t index = 0; index < state.prefillChunks.size(); index++) chunks.Set(index, state.prefillChunks[index]);
    stats.Set("prefillChunks", chunks);
    stats.Set("totalMs", milliseconds(state.createdAt, state.finishedAt));
    if (state.hasFirstEvent) {
      stats.Set("timeToFirstTokenMs", milliseconds(state.createdAt, state.firstEventAt));
      stats.Set("decodeMs", milliseconds(state.firstEventAt, state.finishedAt));
      if (state.hasPrefillStarted) stats.Set("prefillMs", milliseconds(state.prefillStartedAt, state.firstEventAt));
    }
  }
  return stats;
}

Napi::Value AddonDecodeJob::GetPromptLogprobs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DecodeJob& state = requireState(env);
  std::lock_guard<std::mutex> lock(engine_->mutex);
  if (!state.finished || !state.config.promptLogprobs || state.promptLogprobs.empty()) return env.Null();
  Napi::Float32Array result = Napi::Float32Array::New(env, state.promptLogprobs.size());
  std::memcpy(result.Data(), state.promptLogprobs.data(), state.promptLogprobs.size() * sizeof(float));
  return result;
}
}  // namespace tessera

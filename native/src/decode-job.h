#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "event-ring.h"
#include "llama.h"
#include "logits-capture.h"
#include "sampler-set.h"

namespace tessera {

class PullWaiter;

struct DecodeJobConfig {
  std::vector<llama_token> prompt;
  SamplerConfig sampler;
  CaptureConfig raw;
  CaptureConfig processed;
  bool recordCutBy = false;  // per raw top-k candidate, the stage that removed it (needs raw top-k)
  int32_t maxTokens = 0;  // 0 = until an end-of-generation token or the sequence's context is full
  bool ignoreEos = false;
  bool promptLogprobs = false;
  bool reusePrefix = true;
  // Decode the prompt into the sequence's KV cells and finish ("stop"), sampling nothing and sending no
  // event: a long prompt's first tokens are prefilled while JavaScript still tokenizes the rest, and the
  // generation that follows (DecodeJob::after) reuses the cells. Wrong guesses cost time, never tokens:
  // the follower has its own exact prompt and reuses only the prefix it shares.
  bool prefillOnly = false;
  // Each event's logprob (chosen logit minus the processed log-sum-exp); false leaves it NaN and lets
  // greedy decoding without captures skip the log-sum-exp pass over the row.
  bool tokenLogprobs = true;
  uint32_t queueCapacity = 32;
  // How long a decoded event may wait before a waiting pull is woken, so that one wake-up (an eventfd write
  // and a thread switch, ~15% of decode time on a 2-core VM at 0.45 ms per token) delivers several
  // events. 0 wakes the pull for every event. The first event, the last, and a full ring are never held.
  int64_t deliveryDelayMicros = 2000;
};

// Most bytes of captured logits (full rows and top-k entries, raw and processed together) one
// job's ring may hold; the
// same figure as maximumCaptureBytes in src/backends/llamacpp/native-limits.ts, which refuses it first.
constexpr uint64_t fullLogitsBudgetBytes = 1024ull * 1024 * 1024;

enum class FinishReason { none, stop, length, abort, error };

using Clock = std::chrono::steady_clock;

// Shared between the JavaScript thread (AddonDecodeJob) and the decode thread (DecodeEngine).
// Fields marked [engine mutex] are only touched under DecodeEngine::mutex; [decode thread] fields
// only by the decode thread; [js thread] only by JavaScript.
struct DecodeJob {
  DecodeJobConfig config;
  SamplerSet samplers;
  int32_t vocabSize = 0;

  std::atomic<bool> abortRequested{false};

  // [engine mutex]
  EventRing events;  // its read position and count: [engine mutex]; see event-ring.h for the slots
  bool finished = false;
  FinishReason finishReason = FinishReason::none;
  std::string errorCode;
  std::string errorMessage;
  // [JavaScript thread] Set when a pull failed and dropped a batch (AddonDecodeJob::failedPull): stats report
  // it as the error when the generation's own end had none, so a raw reader learns events are missing.
  const char* droppedByPull = nullptr;
  bool pullWaiting = false;
  bool notifyHeld = false;       // a pull is waiting and events are ready, but its wake-up is deferred
  Clock::time_point heldSince{};  // when the deferral began
  int32_t sequence = -1;  // assigned by the decode thread when a sequence is free
  // Not given a sequence until this job has finished (a prefillOnly job warming this one's prefix), then
  // before the jobs queued without one; released when this job is given its sequence.
  std::shared_ptr<DecodeJob> after;

  // [decode thread]
  bool started = false;
  size_t promptCursor = 0;
  int32_t position = 0;
  llama_token pendingToken = 0;
  bool prefillDone = false;
  int32_t generated = 0;
  std::vector<float> promptLogprobs;  // NaN where not computed (position 0, reused prefix)
  std::vector<llama_token_data> candidates;
  std::vector<float> processedRow;  // dense draws with a temperature: the divided row
  CutByRecorder cutBy;              // recordCutBy only

  // Stats, written by the decode thread and read under the engine mutex once finished.
  int32_t reusedPromptTokens = 0;
  std::vector<int32_t> prefillChunks;  // prompt tokens decoded per step, in order
  Clock::time_point createdAt = Clock::now();
  Clock::time_point prefillStartedAt{};
  Clock::time_point firstEventAt{};
  Clock::time_point finishedAt{};
  bool hasFirstEvent = false;
  bool hasPrefillStarted = false;

  PullWaiter* waiter = nullptr;  // [js thread] the AddonDecodeJob wrapping this state, or null once collected

  // Fixed once the samplers are built (either thread may ask).
  // Without processing samplers the processed logits are the raw row: dense (vectorized) passes apply.
  bool direct() const {
    return !samplers.hasProcessing() && (!samplers.isDenseDraw() || samplers.denseTemperature() == 1.0f);
  }
  // Greedy on untouched logits: the token is the row's arg-max.
  bool greedyOnRow() const { return direct() && config.sampler.greedy && !samplers.isDenseDraw(); }
  // Greedy on untouched logits with the raw row captured in full: every slot keeps the whole row, so the
  // pull computes the row's log-sum-exp (both captures' logSumExp and the token's logprob) on the
  // JavaScript thread (AddonDecodeJob::completeDeferred), and the decode thread needs only the arg-max
  // scan: the pass was ~7 µs of a 270 µs step on `tiny`. Nothing on the decode thread reads it on this path.
  // Set once, when the samplers are built (AddonContext::Generate), before the job is submitted: the
  // predicates above read the live samplers, which finishing a job clears, so the pull of events read after
  // the end would see "untouched logits" for a job with processing samplers (a reviewer's logit-biased
  // greedy run got positive logprobs), and would read them while the decode thread clears them.
  bool logSumExpOnPull = false;
};

const char* finishReasonName(FinishReason reason);
}  // namespace tessera

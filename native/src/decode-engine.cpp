#include "decode-engine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "engine-registry.h"
#include "model-handle.h"
#include "test-hooks.h"

namespace tessera {
namespace {
// Below this many shared tokens, prefilling again is about as cheap as copying another sequence's KV
// stream (a cross-stream copy moves the whole stream buffer: a memcpy of megabytes, where a CPU
// prefill of a 1B model costs ~25 ms per token).
constexpr size_t minimumSharedPrefix = 8;

size_t commonPrefix(const std::vector<llama_token>& a, const std::vector<llama_token>& b) {
  const size_t limit = std::min(a.size(), b.size());
  size_t length = 0;
  while (length < limit && a[length] == b[length]) length++;
  return length;
}
}  // namespace

const char* finishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::stop: return "stop";
    case FinishReason::length: return "length";
    case FinishReason::abort: return "abort";
    case FinishReason::error: return "error";
    default: return nullptr;
  }
}

DecodeEngine::DecodeEngine(std::shared_ptr<ModelHandle> model, llama_context* context, Notify notify,
                           int32_t prefillChunkSize)
    : model_(std::move(model)),
      context_(context),
      vocab_(model_->vocab),
      vocabSize_(model_->vocabSize),
      sequenceCount_(static_cast<int32_t>(llama_n_seq_max(context))),
      sequenceContextSize_(static_cast<int32_t>(llama_n_ctx_seq(context))),
      contextSize_(static_cast<int32_t>(llama_n_ctx(context))),
      batchSize_(static_cast<int32_t>(llama_n_batch(context))),
      prefillChunkSize_(prefillChunkSize > 0 ? std::min(prefillChunkSize, batchSize_) : batchSize_),
      microBatchSize_(static_cast<int32_t>(llama_n_ubatch(context))),
      threads_(llama_n_threads(context)),
      notify_(std::move(notify)) {
  rowPool_ = RowPool::create(static_cast<size_t>(vocabSize_), rowPoolRetainBytes);
  sequenceTokens_.resize(static_cast<size_t>(sequenceCount_));
  sequenceUsedAt_.resize(static_cast<size_t>(sequenceCount_), 0);
  sequencePromptLength_.resize(static_cast<size_t>(sequenceCount_), 0);
  sequenceReservedBy_.resize(static_cast<size_t>(sequenceCount_));
  llama_set_abort_callback(context_, abortCallback, this);
  thread_ = std::thread([this] { run(); });
}

DecodeEngine::~DecodeEngine() {
  dispose();
  EngineRegistry::remove(this);
}

void DecodeEngine::stopThread() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    shutdown_.store(true);
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void DecodeEngine::submit(const std::shared_ptr<DecodeJob>& job) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    waiting_.push_back(job);
  }
  wake_.notify_one();
}

void DecodeEngine::requestAbort(DecodeJob& job) {
  job.abortRequested.store(true);
  wake();
}

void DecodeEngine::wake() {
  // Taking the mutex orders this wake-up after the decode thread's check of its wait predicate.
  { std::lock_guard<std::mutex> lock(mutex); }
  wake_.notify_one();
}

std::vector<std::shared_ptr<DecodeJob>> DecodeEngine::dispose() {
  std::vector<std::shared_ptr<DecodeJob>> toNotify;
  if (disposed_) return toNotify;
  stopThread();
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto everyone = active_;
    everyone.insert(everyone.end(), waiting_.begin(), waiting_.end());
    for (auto& job : everyone) {
      finishLocked(job, FinishReason::abort, "ERR_CONTEXT_DISPOSED", "the context was disposed during generation",
                   toNotify);
    }
    active_.clear();
    waiting_.clear();
    toNotify.insert(toNotify.end(), undelivered_.begin(), undelivered_.end());
    undelivered_.clear();
  }
  llama_free(context_);
  context_ = nullptr;
  disposed_ = true;
  // The engine itself lives on while a handle (the context's, a finished stream's job) refers to it:
  // the rows its pool keeps for reuse are freed now, not with the last handle.
  rowPool_->close();
  return toNotify;
}

DecodeEngine::Counters DecodeEngine::counters() {
  std::lock_guard<std::mutex> lock(mutex);
  return {static_cast<int32_t>(active_.size()), static_cast<int32_t>(waiting_.size()), peakLive_,
          promptTokensDecoded_, generatedTokensDecoded_, decodeCalls_.load(std::memory_order_relaxed),
          heldWakeUps_, rowPool_->allocatedRows(), rowPool_->keptRows(), rowPool_->handedOutRows()};
}

void DecodeEngine::resetPeak() {
  std::lock_guard<std::mutex> lock(mutex);
  peakLive_ = static_cast<int32_t>(active_.size());
}

std::vector<llama_token> DecodeEngine::sequenceTokens(int32_t sequence) {
  std::lock_guard<std::mutex> lock(mutex);
  if (sequence < 0 || sequence >= sequenceCount_) return {};
  return sequenceTokens_[static_cast<size_t>(sequence)];
}

bool DecodeEngine::abortCallback(void* data) {
  auto* self = static_cast<DecodeEngine*>(data);
  if (self->shutdown_.load(std::memory_order_relaxed)) return true;
  // One batch serves several sequences: interrupt it only when every one of them wants to stop.
  if (self->batchMembers_.empty()) return false;
  for (auto* job : self->batchMembers_) {
    if (!job->abortRequested.load(std::memory_order_relaxed)) return false;
  }
  return true;
}

bool DecodeEngine::hasWorkLocked() {
  if (shutdown_.load()) return true;
  for (auto& job : waiting_) {
    if (job->abortRequested.load()) return true;
  }
  if (static_cast<int32_t>(active_.size()) < sequenceCount_) {
    for (auto& job : waiting_) {
      if (assignableLocked(*job)) return true;
    }
  }
  for (auto& job : active_) {
    if (job->abortRequested.load()) return true;
    if (job->events.hasRoomLocked()) return true;
  }
  return false;
}

void DecodeEngine::clearSequence(int32_t sequence) {
  if (sequence < 0) return;
  llama_memory_seq_rm(llama_get_memory(context_), sequence, -1, -1);
  sequenceTokens_[static_cast<size_t>(sequence)].clear();
  sequencePromptLength_[static_cast<size_t>(sequence)] = 0;
}

void DecodeEngine::finishLocked(const std::shared_ptr<DecodeJob>& job, FinishReason reason,
                                const char* code, const std::string& message,
                                std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  if (job->finished) return;
  job->finished = true;
  job->finishReason = reason;
  job->errorCode = code == nullptr ? "" : code;
  job->errorMessage = message;
  job->finishedAt = Clock::now();
  // Least recently used counts from a sequence's last generation's end: a free sequence's last event.
  if (job->sequence >= 0) sequenceUsedAt_[static_cast<size_t>(job->sequence)] = ++sequenceUses_;
  // A prefill-ahead's cells wait for its follower, which is queued only after the whole prompt is
  // tokenized: until then a job arriving in between (a batch's next prefill, another request) would take
  // this sequence as the one it cuts the fewest cells of (a reviewer measured 20-27% more prompt tokens).
  if (job->config.prefillOnly && reason == FinishReason::stop && job->sequence >= 0)
    sequenceReservedBy_[static_cast<size_t>(job->sequence)] = job;
  active_.erase(std::remove(active_.begin(), active_.end(), job), active_.end());
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), job), waiting_.end());
  // Only the decode thread uses these, and it is either the caller or joined: free them now rather
  // than when JavaScript's garbage collector gets to the handle (it does not see native memory).
  job->samplers.clear();
  std::vector<llama_token_data>().swap(job->candidates);
  std::vector<float>().swap(job->processedRow);
  job->cutBy.release();
  job->after.reset();
  if (job->pullWaiting) {
    job->pullWaiting = false;
    toNotify.push_back(job);
  }
}

void DecodeEngine::assignSequencesLocked(std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  // Two passes, each in arrival order: first the jobs whose prefill-ahead has just finished (its cells are
  // theirs to continue; a job queued without one would take and cut them), then the rest. A job still
  // waiting for its prefill-ahead stays queued without holding up the others.
  for (const bool followers : {true, false}) {
    for (size_t index = 0; index < waiting_.size() && static_cast<int32_t>(active_.size()) < sequenceCount_;) {
      auto job = waiting_[index];
      if (!assignableLocked(*job) || (followers && !job->after)) {
        index++;
        continue;
      }
      waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(index));
      // A follower takes the sequence its prefill filled, when it is free and still held for it (another job
      // may have taken it since, and another prefill filled it for its own follower); else it chooses as
      // any job.
      int32_t sequence = -1;
      if (job->after && job->after->finishReason == FinishReason::stop && job->after->sequence >= 0 &&
          sequenceReservedBy_[static_cast<size_t>(job->after->sequence)].lock() == job->after) {
        sequence = job->after->sequence;
        for (auto& other : active_) {
          if (other->sequence == sequence) sequence = -1;
        }
      }
      job->after.reset();
      if (sequence < 0) sequence = chooseSequenceLocked(*job);
      if (job->config.prefillOnly && reservedLocked(sequence)) {
        // Only another prefill's held cells are free: cutting them for this one would waste that prefill
        // and gain nothing overall. This prefill does nothing, and its follower chooses as any job.
        finishLocked(job, FinishReason::stop, nullptr, "", toNotify);
        continue;
      }
      job->sequence = sequence;
      sequenceReservedBy_[static_cast<size_t>(sequence)].reset();
      active_.push_back(job);
      peakLive_ = std::max(peakLive_, static_cast<int32_t>(active_.size()));
    }
  }
}

bool DecodeEngine::reservedLocked(int32_t sequence) const {
  const auto prefill = sequenceReservedBy_[static_cast<size_t>(sequence)].lock();
  return prefill && !prefill->abortRequested.load();
}

int32_t DecodeEngine::chooseSequenceLocked(const DecodeJob& job) const {
  std::vector<bool> busy(static_cast<size_t>(sequenceCount_), false);
  for (auto& other : active_) busy[static_cast<size_t>(other->sequence)] = true;
  const bool reuses = job.config.reusePrefix && !job.config.promptLogprobs;
  // Taking a sequence drops its cells from the first token that differs, so:
  // 1. a prompt that keeps the whole prompt of a sequence's last generation is that conversation's (its
  //    next turn, a regenerate, a re-rendered answer, a retry): it takes that sequence and cuts only that
  //    generation's output;
  // 2. any other prompt takes an empty sequence, cutting no other conversation's history (startJob copies
  //    a shared prefix of 8 or more tokens, a system prompt, in from another sequence);
  // 3. with none empty, the sequence it would cut the fewest cells of, the least recently used among
  //    equals.
  // docs/native.md has the rules this replaced and the replays that chose between them, and this one's
  // weak spot (a long idle history outlives shorter live ones).
  // 0. a prefill-ahead whose whole prompt a sequence already holds (the history of a chat's next turn)
  //    takes that sequence and does nothing there (startJob): the generation that follows it then chooses
  //    as if it had not run, instead of finding that history cut or copied.
  if (job.config.prefillOnly && reuses) {
    for (int32_t sequence = 0; sequence < sequenceCount_; sequence++) {
      if (busy[static_cast<size_t>(sequence)]) continue;
      if (commonPrefix(sequenceTokens_[static_cast<size_t>(sequence)], job.config.prompt) == job.config.prompt.size())
        return sequence;
    }
  }
  int32_t continued = -1;
  size_t continuedShared = 0;
  int32_t empty = -1;
  int32_t cheapest = -1;
  size_t cheapestLoss = 0;
  int32_t reserved = -1;  // 4. a sequence held for a prefill's follower, only when nothing else is free
  for (int32_t sequence = 0; sequence < sequenceCount_; sequence++) {
    if (busy[static_cast<size_t>(sequence)]) continue;
    const auto& cached = sequenceTokens_[static_cast<size_t>(sequence)];
    if (cached.empty()) {
      if (empty < 0) empty = sequence;
      continue;
    }
    const size_t shared = reuses ? commonPrefix(cached, job.config.prompt) : 0;
    // An aborted prefill leaves fewer cells than its prompt: keeping them all is keeping that prompt.
    const size_t lastPrompt = std::min(sequencePromptLength_[static_cast<size_t>(sequence)], cached.size());
    if (shared > 0 && shared >= lastPrompt && shared > continuedShared) {
      continued = sequence;
      continuedShared = shared;
    }
    if (reservedLocked(sequence)) {
      if (reserved < 0) reserved = sequence;
      continue;
    }
    const size_t loss = cached.size() - shared;
    const bool older = cheapest >= 0 && sequenceUsedAt_[static_cast<size_t>(sequence)] <
                                            sequenceUsedAt_[static_cast<size_t>(cheapest)];
    if (cheapest < 0 || loss < cheapestLoss || (loss == cheapestLoss && older)) {
      cheapest = sequence;
      cheapestLoss = loss;
    }
  }
  if (continued >= 0) return continued;
  if (empty >= 0) return empty;
  return cheapest >= 0 ? cheapest : reserved;
}

bool DecodeEngine::startJob(DecodeJob& job) {
  auto& prompt = job.config.prompt;
  const int32_t sequence = job.sequence;
  auto& cached = sequenceTokens_[static_cast<size_t>(sequence)];
  llama_memory_t memory = llama_get_memory(context_);
  // Keep at least one prompt token to decode: its logits drive the first sample. A prefill-ahead samples
  // nothing: when its sequence holds its whole prompt, it leaves the cells as they are and finishes.
  if (job.config.prefillOnly && job.config.reusePrefix && commonPrefix(cached, prompt) == prompt.size()) {
    job.started = true;
    job.promptCursor = prompt.size();
    job.position = static_cast<int32_t>(prompt.size());
    job.reusedPromptTokens = static_cast<int32_t>(prompt.size());
    job.prefillDone = true;
    return true;
  }
  const size_t usableLimit = job.config.prefillOnly ? prompt.size() : prompt.size() - 1;
  size_t reused = 0;

  if (job.config.reusePrefix && !job.config.promptLogprobs) {
    const size_t own = std::min(commonPrefix(cached, prompt), usableLimit);
    // Another job prefilling the same long prefix right now: wait for it, then copy its cells
    // instead of computing the same prefix twice (best-of-n, concurrent requests with one system prompt).
    for (auto& other : active_) {
      if (other.get() == &job || !other->started || other->prefillDone) continue;
      const size_t shared = std::min(commonPrefix(other->config.prompt, prompt), usableLimit);
      if (shared >= own + minimumSharedPrefix) return false;
    }
    int32_t donor = -1;
    size_t donorShared = own;
    for (int32_t other = 0; other < sequenceCount_; other++) {
      if (other == sequence) continue;
      const size_t shared = std::min(commonPrefix(sequenceTokens_[static_cast<size_t>(other)], prompt), usableLimit);
      if (shared >= donorShared + minimumSharedPrefix) {
        donor = other;
        donorShared = shared;
      }
    }
    if (donor >= 0) {
      llama_memory_seq_rm(memory, sequence, -1, -1);
      llama_memory_seq_cp(memory, donor, sequence, -1, -1);
      if (llama_memory_seq_rm(memory, sequence, static_cast<llama_pos>(donorShared), -1)) {
        cached.assign(prompt.begin(), prompt.begin() + static_cast<std::ptrdiff_t>(donorShared));
        reused = donorShared;
      } else {
        // Recurrent and hybrid memories cannot drop the donor's tail: the copy would carry the donor's
        // whole state into this prompt. Start this sequence over instead.
        clearSequence(sequence);
      }
    } else if (llama_memory_seq_rm(memory, sequence, static_cast<llama_pos>(own), -1)) {
      cached.resize(own);
      reused = own;
    } else {
      clearSequence(sequence);  // memories that cannot drop a tail (recurrent models) start over
    }
  } else {
    clearSequence(sequence);
  }

  sequencePromptLength_[static_cast<size_t>(sequence)] = prompt.size();
  job.started = true;
  job.promptCursor = reused;
  job.position = static_cast<int32_t>(reused);
  job.reusedPromptTokens = static_cast<int32_t>(reused);
  // A prefill-ahead that found its whole prompt elsewhere (copied from a busy sequence that holds it) has
  // nothing left to decode: done now, or no step would ever plan it and its follower would wait forever.
  if (job.config.prefillOnly && reused == prompt.size()) job.prefillDone = true;
  if (job.config.recordCutBy && !job.samplers.isDenseDraw()) job.cutBy.prepare(vocabSize_);
  if (job.samplers.isDenseDraw() && job.samplers.denseTemperature() != 1.0f) {
    job.processedRow.resize(static_cast<size_t>(vocabSize_));
  }
  if (job.config.promptLogprobs) {
    job.promptLogprobs.assign(prompt.size(), std::numeric_limits<float>::quiet_NaN());
  }
  return true;
}

void DecodeEngine::failJob(const std::shared_ptr<DecodeJob>& job, const char* code,
                           const std::string& message, std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  std::lock_guard<std::mutex> lock(mutex);
  clearSequence(job->sequence);
  finishLocked(job, FinishReason::error, code, message, toNotify);
}

void DecodeEngine::addPlanned(llama_batch& batch, Planned& planned) {
  DecodeJob& job = *planned.job;
  planned.firstBatchIndex = static_cast<size_t>(batch.n_tokens);
  auto addToken = [&batch](llama_token token, llama_pos position, llama_seq_id sequence, bool logits) {
    const int32_t index = batch.n_tokens++;
    batch.token[index] = token;
    batch.pos[index] = position;
    batch.n_seq_id[index] = 1;
    batch.seq_id[index][0] = sequence;
    batch.logits[index] = logits ? 1 : 0;
  };
  if (!planned.fromPrompt) {
    addToken(job.pendingToken, job.position, job.sequence, true);
    return;
  }
  const auto& prompt = job.config.prompt;
  for (size_t offset = 0; offset < planned.tokenCount; offset++) {
    const size_t index = job.promptCursor + offset;
    const bool last = index + 1 == prompt.size();
    addToken(prompt[index], static_cast<llama_pos>(index), job.sequence,
             (last && !job.config.prefillOnly) || job.config.promptLogprobs);
  }
}

llama_pos DecodeEngine::firstPosition(const Planned& planned) {
  return planned.fromPrompt ? static_cast<llama_pos>(planned.job->promptCursor) : planned.job->position;
}

int32_t DecodeEngine::decodeGuarded(llama_batch& batch, const std::vector<Planned>& plan, std::string& failure) {
  batchMembers_.clear();
  for (auto& planned : plan) batchMembers_.push_back(planned.job.get());
  int32_t status;
  try {
    if (testhooks::fire(testhooks::Point::throwInDecode)) throw std::runtime_error("injected by the throwInDecode test hook");
    status = llama_decode(context_, batch);
  } catch (const std::bad_alloc&) {
    failure = "out of memory in llama_decode";
    status = decodeThrew;
  } catch (const std::exception& error) {
    failure = std::string("llama_decode threw: ") + error.what();
    status = decodeThrew;
  }
  batchMembers_.clear();
  if (status == 0) decodeCalls_.fetch_add(1, std::memory_order_relaxed);
  if (status != 0 && status != decodeThrew) {
    failure = status == 1 ? "llama_decode found no free KV cell for this sequence (the context is full); use a larger "
                            "contextSize, or a split KV cache (unifiedKvCache: false) so sequences cannot crowd each other out"
                          : "llama_decode failed with status " + std::to_string(status);
  }
  return status;
}

void DecodeEngine::completePlanned(const Planned& planned, const llama_batch& batch,
                                   std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  auto& job = planned.job;
  {
    std::lock_guard<std::mutex> lock(mutex);
    (planned.fromPrompt ? promptTokensDecoded_ : generatedTokensDecoded_) += planned.tokenCount;
    auto& cached = sequenceTokens_[static_cast<size_t>(job->sequence)];
    for (size_t offset = 0; offset < planned.tokenCount; offset++) {
      cached.push_back(batch.token[planned.firstBatchIndex + offset]);
    }
  }
  if (job->abortRequested.load()) return;  // handled at the top of the next step
  if (planned.fromPrompt) {
    const auto& prompt = job->config.prompt;
    if (job->config.promptLogprobs) {
      for (size_t offset = 0; offset < planned.tokenCount; offset++) {
        const size_t index = job->promptCursor + offset;
        if (index + 1 >= prompt.size()) break;
        const float* row = llama_get_logits_ith(context_, static_cast<int32_t>(planned.firstBatchIndex + offset));
        job->promptLogprobs[index + 1] = row[prompt[index + 1]] - logSumExpDense(row, vocabSize_);
      }
    }
    job->promptCursor += planned.tokenCount;
    job->position += static_cast<int32_t>(planned.tokenCount);
    if (job->promptCursor == prompt.size()) {
      job->prefillDone = true;
      if (job->config.prefillOnly) {
        std::lock_guard<std::mutex> lock(mutex);
        finishLocked(job, FinishReason::stop, nullptr, "", toNotify);
        return;
      }
      const int32_t lastIndex = static_cast<int32_t>(planned.firstBatchIndex + planned.tokenCount - 1);
      sampleGuarded(job, llama_get_logits_ith(context_, lastIndex), toNotify);
    }
  } else {
    job->position += 1;
    sampleGuarded(job, llama_get_logits_ith(context_, static_cast<int32_t>(planned.firstBatchIndex)), toNotify);
  }
}

void DecodeEngine::run() {
  llama_batch batch = llama_batch_init(batchSize_, 0, 1);
  std::vector<std::shared_ptr<DecodeJob>> toNotify;
  std::vector<std::shared_ptr<DecodeJob>> members;
  std::vector<Planned> plan;

  while (true) {
    toNotify.clear();
    members.clear();
    plan.clear();
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake_.wait(lock, [this] { return hasWorkLocked(); });
      if (shutdown_.load()) break;
      // finishLocked erases the job from its list: walking backwards never skips one, and only
      // aborted ones are copied out (no copy of the lists every decode step).
      for (size_t index = waiting_.size(); index-- > 0;) {
        if (!waiting_[index]->abortRequested.load()) continue;
        const std::shared_ptr<DecodeJob> job = waiting_[index];
        finishLocked(job, FinishReason::abort, nullptr, "", toNotify);
      }
      for (size_t index = active_.size(); index-- > 0;) {
        if (!active_[index]->abortRequested.load()) continue;
        const std::shared_ptr<DecodeJob> job = active_[index];
        // The cells of everything decoded so far stay (sequenceTokens_ says which): a stop sequence or a
        // `break` ends a chat turn this way, and the next turn then reuses the whole history.
        finishLocked(job, FinishReason::abort, nullptr, "", toNotify);
      }
      assignSequencesLocked(toNotify);
      const size_t activeCount = active_.size();
      for (size_t offset = 0; offset < activeCount; offset++) {
        auto& job = active_[(roundRobin_ + offset) % activeCount];
        if (job->events.hasRoomLocked()) members.push_back(job);
      }
      roundRobin_++;
    }
    for (auto& job : toNotify) notify_(job);
    toNotify.clear();
    if (members.empty()) continue;

    try {
      step(batch, members, plan, toNotify);
    } catch (const std::exception& error) {
      // Last resort (the per-job guards should catch everything): fail what this step held.
      for (auto& planned : plan) {
        failJob(planned.job, "ERR_NATIVE_EXCEPTION",
                std::string("the decode loop failed: ") + error.what(), toNotify);
      }
    }
    testhooks::pause(testhooks::Point::afterStep);
    if (shutdown_.load()) {
      // This step may have queued an event and cleared a waiting pull's flag: dispose() (which joins
      // this thread) settles those pulls itself, on the JavaScript thread, instead of a notification
      // that is never sent. Without this a pull could stay pending forever after context.dispose().
      std::lock_guard<std::mutex> lock(mutex);
      undelivered_.insert(undelivered_.end(), toNotify.begin(), toNotify.end());
      break;
    }
    for (auto& job : toNotify) notify_(job);
    if (yieldAfterNotify_) {
      // The wake-up just sent may have put JavaScript's thread on this core's run queue (the kernel
      // places a woken thread near its waker), where it would wait out this thread's time slice before
      // the idle core pulls it over: first tokens reached the reader 2-4 ms late in ~1 run of 8. Giving
      // up the core once per first token lets it run at once.
      yieldAfterNotify_ = false;
      std::this_thread::yield();
    }
  }
  llama_batch_free(batch);
}

// llama.cpp attends over the cache's cells padded up to a multiple of 256 (llama_kv_cache::get_n_kv, the
// "n_pad_cur" there), so a micro-batch whose last cell lands just past such a multiple pays for 256 more
// cells of attention (K·Q and softmax) than one that ends on it. A prompt that continues a reused prefix
// of r cells (r = 3 for a new prompt sharing only BOS and a word with the last one) would otherwise end its
// first 512-token micro-batch at cell 515 and attend over 768 cells: measured, that made a 640-token
// prefill of the tiny model 24.5 ms instead of 19 ms. So a chunk that would cross a multiple of 256 stops
// at the last one it reaches within one micro-batch, and later chunks start aligned. Even a 1-token tail
// (a 513-token prompt after 3 reused cells: [509, 1]) is cheaper on the tiny model than 509 tokens
// attending over 256 extra cells; a prompt that ends before the boundary is left whole.
size_t DecodeEngine::alignedPrefillChunk(size_t cursor, size_t remaining, size_t budget) const {
  constexpr size_t kvPadding = 256;
  const size_t chunk = std::min(remaining, budget);
  const size_t misalignment = cursor % kvPadding;
  // One step takes at most a micro-batch and at most `budget` tokens (prefillChunkSize_, less what the
  // step's decoding sequences and earlier chunks took). With a budget that is a multiple of 256 (256 is
  // the CPU default step for attention-bound shapes) the reach is the smaller of the two: measured from the
  // micro-batch (512), every 256-token step of a prompt that began misaligned crossed a multiple of 256.
  // Any other budget crosses multiples of 256 whatever the cut, and cutting it to one only added steps
  // ([255, 255, 2, ...] for steps of 255, [255, 1, 255, 1, ...] with a batch of 258 and three decoding
  // sequences), so it keeps the micro-batch's reach.
  const size_t microBatch = static_cast<size_t>(microBatchSize_);
  const size_t reach = budget % kvPadding == 0 ? std::min(microBatch, budget) : microBatch;
  if (misalignment == 0 || reach <= misalignment) return chunk;
  // Up to the last multiple of 256 that one step from here reaches (none: a step under 256).
  const size_t boundary = ((cursor + reach) / kvPadding) * kvPadding;
  if (boundary <= cursor) return chunk;
  const size_t aligned = boundary - cursor;
  // Only a chunk that would cross that boundary is cut: a prompt that ends before it gains nothing. And
  // only to half of it or more: a step of 256 that starts a few cells short of a multiple (after steps of
  // 255 while sequences decode) would otherwise become a step of those few cells, a whole extra step for
  // them. With a reach of 512 the cut piece is always 256 or more, so this changes nothing there.
  return chunk > aligned && aligned * 2 >= chunk ? aligned : chunk;
}

void DecodeEngine::flushHeldDeliveries() {
  std::vector<std::shared_ptr<DecodeJob>> held;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& job : active_) {
      if (!job->notifyHeld || !job->pullWaiting) continue;
      job->notifyHeld = false;
      job->pullWaiting = false;
      held.push_back(job);
    }
  }
  for (auto& job : held) notify_(job);
}

void DecodeEngine::step(llama_batch& batch, const std::vector<std::shared_ptr<DecodeJob>>& members,
                        std::vector<Planned>& plan, std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  // One batch: a token for every decoding sequence first (they are latency-bound), then prefill chunks.
  int32_t budget = batchSize_;
  for (auto& job : members) {
    if (budget == 0) break;
    if (!job->started || !job->prefillDone) continue;
    plan.push_back({job, 0, 1, false});
    budget--;
  }
  // Prompt chunks share at most prefillChunkSize_ tokens per step, so a long prefill takes several steps
  // and an abort is seen between them even where llama.cpp cannot interrupt a graph (GPU backends).
  budget = std::min(budget, prefillChunkSize_);
  for (auto& job : members) {
    if (budget == 0) break;
    if (!job->started) {
      try {
        std::lock_guard<std::mutex> lock(mutex);
        if (!startJob(*job)) continue;
        if (job->prefillDone) {
          finishLocked(job, FinishReason::stop, nullptr, "", toNotify);
          continue;
        }
      } catch (const std::exception& error) {
        failJob(job, "ERR_NATIVE_EXCEPTION",
                std::string("llama.cpp failed while preparing the sequence: ") + error.what(), toNotify);
        continue;
      }
    }
    if (job->prefillDone) continue;
    const auto& prompt = job->config.prompt;
    const size_t chunk = alignedPrefillChunk(job->promptCursor, prompt.size() - job->promptCursor,
                                             static_cast<size_t>(budget));
    if (chunk == 0) continue;
    if (!job->hasPrefillStarted) {
      job->hasPrefillStarted = true;
      job->prefillStartedAt = Clock::now();
    }
    plan.push_back({job, 0, chunk, true});
    job->prefillChunks.push_back(static_cast<int32_t>(chunk));
    budget -= static_cast<int32_t>(chunk);
  }
  batch.n_tokens = 0;
  for (auto& planned : plan) addPlanned(batch, planned);
  if (batch.n_tokens == 0) {
    // Everyone is waiting for a sibling's prefill that is itself parked: should not happen, but never spin.
    std::unique_lock<std::mutex> lock(mutex);
    wake_.wait_for(lock, std::chrono::milliseconds(1));
    return;
  }

  // A prefill chunk makes this step long: wake the pulls whose events were held for a short one.
  for (const auto& planned : plan) {
    if (planned.fromPrompt) {
      flushHeldDeliveries();
      break;
    }
  }
  std::string failure;
  const Clock::time_point stepStart = Clock::now();
  const int32_t status = decodeGuarded(batch, plan, failure);
  if (shutdown_.load()) return;
  if (status == 0) {
    for (auto& planned : plan) completePlanned(planned, batch, toNotify);
    lastStepMicros_ =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - stepStart).count();
    return;
  }
  // 2: every member asked to stop (abortCallback); llama.cpp removed the interrupted ubatch's cells and
  // the top of the next step finishes them, keeping what was decoded before.
  if (status == 2) return;
  if (plan.size() == 1) {
    failJob(plan.front().job, "ERR_DECODE", failure, toNotify);
    return;
  }
  // One member's failure (its sequence ran out of cells, say) must not fail its batch-mates: undo what
  // the failed batch may have written (earlier ubatches stay in memory), then decode each member alone
  // and report a failure on the member that fails by itself.
  llama_memory_t memory = llama_get_memory(context_);
  for (auto& planned : plan) llama_memory_seq_rm(memory, planned.job->sequence, firstPosition(planned), -1);
  std::vector<Planned> single(1);
  for (auto& planned : plan) {
    if (planned.job->abortRequested.load()) continue;
    single[0] = planned;
    batch.n_tokens = 0;
    addPlanned(batch, single[0]);
    std::string alone;
    const int32_t retried = decodeGuarded(batch, single, alone);
    if (shutdown_.load()) return;
    if (retried == 0) {
      completePlanned(single[0], batch, toNotify);
    } else if (retried != 2) {
      failJob(planned.job, "ERR_DECODE", alone, toNotify);
    }
  }
}
}  // namespace tessera

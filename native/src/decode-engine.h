#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "decode-job.h"
#include "llama.h"

namespace tessera {

struct ModelHandle;

// One native thread per context: every step it builds ONE llama_batch holding a token for each
// decoding sequence plus prefill chunks, decodes it, samples each sequence and pushes events into the
// sequences' bounded queues. A sequence whose queue is full is left out of the batch (parked) until
// JavaScript pulls, so a stalled consumer pauses only its own decoding.
class DecodeEngine {
 public:
  using Notify = std::function<void(const std::shared_ptr<DecodeJob>&)>;

  // prefillChunkSize 0 = the batch size (one chunk may fill the whole batch).
  DecodeEngine(std::shared_ptr<ModelHandle> model, llama_context* context, Notify notify, int32_t prefillChunkSize = 0);
  ~DecodeEngine();

  void submit(const std::shared_ptr<DecodeJob>& job);
  void requestAbort(DecodeJob& job);
  void wake();
  // Stops the thread, finishes every job with "abort" and frees the llama context.
  // Returns the jobs that had a JavaScript pull waiting (the caller resolves them).
  std::vector<std::shared_ptr<DecodeJob>> dispose();
  // Sets the shutdown flag and joins the decode thread (also used by the process-exit handler).
  void stopThread();
  bool isDisposed() const { return disposed_; }
  // Where full captures' rows come from and go back to (any thread).
  const std::shared_ptr<RowPool>& rowPool() const { return rowPool_; }
  // Returned rows a context keeps for reuse: 64 MiB, about what V8 lets JavaScript's Float32Arrays of
  // captured rows reach between two collections (its external-memory threshold), so that a steady stream
  // of full captures reuses rows instead of allocating them.
  static constexpr size_t rowPoolRetainBytes = size_t{64} << 20;

  // The engine's own counts, for benchmarks and tests that must not trust the caller's bookkeeping.
  struct Counters {
    int32_t liveSequences;      // jobs holding a sequence now
    int32_t waiting;            // jobs queued for a sequence
    int32_t peakLiveSequences;  // most held at once since the context was created
    uint64_t promptTokensDecoded;
    uint64_t generatedTokensDecoded;
    uint64_t decodeCalls;       // successful llama_decode calls
    uint64_t heldWakeUps;       // events a waiting reader was not woken for at once (deliveryDelayMs)
    uint64_t capturedRowsAllocated;  // full-capture rows the pool ever allocated (row-pool.h)
    uint64_t capturedRowsKept;       // returned rows it keeps for reuse now
    uint64_t capturedRowsHandedOut;  // rows JavaScript holds now (their arrays not yet collected)
  };
  Counters counters();
  // Starts a new peak measurement from the jobs live now.
  void resetPeak();

  std::vector<llama_token> sequenceTokens(int32_t sequence);
  int32_t sequenceCount() const { return sequenceCount_; }
  int32_t sequenceContextSize() const { return sequenceContextSize_; }
  int32_t contextSize() const { return contextSize_; }
  int32_t batchSize() const { return batchSize_; }
  int32_t prefillChunkSize() const { return prefillChunkSize_; }
  int32_t threads() const { return threads_; }

  std::mutex mutex;

 private:
  struct Planned {
    std::shared_ptr<DecodeJob> job;
    size_t firstBatchIndex;
    size_t tokenCount;
    bool fromPrompt;
  };

  void run();
  bool hasWorkLocked();
  // A waiting job may take a sequence: the job it follows (DecodeJob::after), if any, has finished.
  static bool assignableLocked(const DecodeJob& job) { return !job.after || job.after->finished; }
  void assignSequencesLocked(std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  int32_t chooseSequenceLocked(const DecodeJob& job) const;
  // A finished prefill-ahead's sequence, kept for the generation that follows it: others take it only
  // when no other sequence is free. Void once that prefill is cancelled or collected, or anyone takes it.
  bool reservedLocked(int32_t sequence) const;
  bool startJob(DecodeJob& job);
  void finishLocked(const std::shared_ptr<DecodeJob>& job, FinishReason reason, const char* code,
                    const std::string& message, std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  void sample(const std::shared_ptr<DecodeJob>& job, const float* row,
              std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  void sampleGuarded(const std::shared_ptr<DecodeJob>& job, const float* row,
                     std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  // Clears the job's cells and finishes it with an error (takes the mutex).
  void failJob(const std::shared_ptr<DecodeJob>& job, const char* code, const std::string& message,
               std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  void failProcessedRow(const std::shared_ptr<DecodeJob>& job, const char* cause,
                        std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  // One decode step over the members that have room in their rings.
  void step(llama_batch& batch, const std::vector<std::shared_ptr<DecodeJob>>& members, std::vector<Planned>& plan,
            std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  void addPlanned(llama_batch& batch, Planned& planned);
  static llama_pos firstPosition(const Planned& planned);
  size_t alignedPrefillChunk(size_t cursor, size_t remaining, size_t budget) const;
  bool holdDeliveryLocked(DecodeJob& job, Clock::time_point now);
  void flushHeldDeliveries();
  // llama_decode with exceptions caught; on failure `failure` says why.
  int32_t decodeGuarded(llama_batch& batch, const std::vector<Planned>& plan, std::string& failure);
  void completePlanned(const Planned& planned, const llama_batch& batch,
                       std::vector<std::shared_ptr<DecodeJob>>& toNotify);
  static constexpr int32_t decodeThrew = -1000;
  void clearSequence(int32_t sequence);
  static bool abortCallback(void* data);

  std::shared_ptr<ModelHandle> model_;
  llama_context* context_;
  const llama_vocab* vocab_;
  int32_t vocabSize_;
  int32_t sequenceCount_;
  int32_t sequenceContextSize_;
  int32_t contextSize_;
  int32_t batchSize_;
  // Most prompt tokens one step decodes, all sequences together. The abort flag is read between steps;
  // inside llama_decode only the CPU backend reads it, so with a GPU this bounds how late an abort lands.
  int32_t prefillChunkSize_;
  int32_t microBatchSize_;  // llama_n_ubatch: llama_decode splits a batch into micro-batches of this size
  int64_t lastStepMicros_ = 0;  // [decode thread] the last step's decode and sampling, for holdDeliveryLocked
  bool yieldAfterNotify_ = false;  // [decode thread] a first token was just delivered: see run()
  // [decode thread] the 32-entry block maxima of the row being sampled (summarizeRow), for topKDense.
  std::vector<float> rowBlockMaxima_;
  // Full captures' rows, reused across tokens and generations (row-pool.h).
  std::shared_ptr<RowPool> rowPool_;
  int32_t threads_;
  Notify notify_;

  std::condition_variable wake_;
  std::atomic<bool> shutdown_{false};
  bool disposed_ = false;
  std::vector<std::shared_ptr<DecodeJob>> waiting_;   // [mutex] FIFO, no sequence yet
  std::vector<std::shared_ptr<DecodeJob>> active_;    // [mutex] holding a sequence
  std::vector<std::vector<llama_token>> sequenceTokens_;    // [mutex] what each sequence's KV cells hold
  std::vector<uint64_t> sequenceUsedAt_;                    // [mutex] sequenceUses_ when each one's last generation ended
  uint64_t sequenceUses_ = 0;                               // [mutex]
  std::vector<size_t> sequencePromptLength_;                // [mutex] the prompt length of each one's last generation
  // [mutex] The prefill-ahead whose cells each sequence holds for its follower (reservedLocked).
  std::vector<std::weak_ptr<DecodeJob>> sequenceReservedBy_;
  std::vector<std::shared_ptr<DecodeJob>> undelivered_;  // [mutex] notifications cut off by shutdown
  int32_t peakLive_ = 0;                                    // [mutex]
  uint64_t promptTokensDecoded_ = 0;                        // [mutex]
  uint64_t generatedTokensDecoded_ = 0;                     // [mutex]
  uint64_t heldWakeUps_ = 0;                                // [mutex]
  std::atomic<uint64_t> decodeCalls_{0};                    // a lock per decode step would be a cost for a count
  std::vector<DecodeJob*> batchMembers_;              // [decode thread] read by abortCallback
  size_t roundRobin_ = 0;
  std::thread thread_;
};
}  // namespace tessera

#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llama.h"
#include "logits-capture.h"
#include "row-pool.h"

namespace tessera {

// One slot of the bounded event queue. Slots are allocated once per job and reused, so the
// decode loop does not allocate per token.
struct EventSlot {
  llama_token token = 0;
  float logprob = 0;  // processed log-probability of the chosen token
  std::string piece;
  TopKCapture raw;
  TopKCapture processed;
  // Full captures: rows from the context's RowPool, taken when a slot is first written after a pull handed
  // its last rows to JavaScript (null until then).
  PooledRow rawFull;
  PooledRow processedFull;
  // The processed row is the raw row (no processing samplers): a pull hands out rawFull for both (the
  // processed one as a copy), and the decode thread skips a vocabulary-sized copy per token.
  bool processedFullIsRaw = false;
  std::vector<uint8_t> cutBy;  // recordCutBy: a SamplerStage per raw top-k entry
};

// The bounded queue of one job's events, from the decode thread (the only writer) to JavaScript
// (the only reader). It alone changes the read position and the count: before, the engine and the
// JavaScript handle both did, each under the engine mutex, and each had to know the other's arithmetic.
//
// Methods ending in Locked need DecodeEngine::mutex held: the decode thread's "is there room" check
// and a pull's "is anything there" check must be ordered with the writes, or a wake-up is lost
// (docs/reliability.md). Slot contents are written and read outside the mutex: the writer only fills
// the slot past the unread ones, and the reader only reads the unread ones it took, until it hands them
// back with consumeLocked.
class EventRing {
 public:
  // The unread slots a pull takes: `count` slots starting at `head`.
  struct Unread {
    size_t head = 0;
    size_t count = 0;
  };

  // JavaScript thread, before the job is submitted.
  void allocate(size_t capacity) {
    slots_.resize(capacity);
    for (auto& slot : slots_) slot.piece.reserve(16);
  }
  // 0 once released. Only the JavaScript thread resizes the slots, so it may read this without the mutex.
  size_t capacity() const { return slots_.size(); }

  bool hasRoomLocked() const { return count_ < slots_.size(); }
  bool isFullLocked() const { return count_ >= slots_.size(); }
  bool isEmptyLocked() const { return count_ == 0; }

  // Decode thread: the slot the next event goes into. Reading the position needs the mutex; filling
  // the slot does not (the reader never touches it before pushLocked publishes it).
  EventSlot& nextSlotLocked() { return slots_[(head_ + count_) % slots_.size()]; }
  void pushLocked() { count_++; }

  // JavaScript thread: at most maxEvents of the unread slots, oldest first.
  Unread unreadLocked(size_t maxEvents) const {
    if (slots_.empty()) return {};
    return {head_, std::min(count_, maxEvents)};
  }
  const EventSlot& at(const Unread& unread, size_t index) const {
    return slots_[(unread.head + index) % slots_.size()];
  }
  // The reader owns the unread slots it took until consumeLocked, so it may also finish them (the
  // log-sum-exp of DecodeJob::logSumExpOnPull) before reading.
  EventSlot& at(const Unread& unread, size_t index) { return slots_[(unread.head + index) % slots_.size()]; }
  // Hands `count` slots (the oldest unread ones) back to the writer.
  void consumeLocked(size_t count) {
    if (slots_.empty()) return;
    head_ = (head_ + count) % slots_.size();
    count_ -= count;
  }
  // JavaScript thread, once the job finished and everything was delivered: the writer is done
  // with the ring, so its slots (and their full logits vectors) are freed now rather than when the
  // garbage collector gets to the handle.
  void release() { std::vector<EventSlot>().swap(slots_); }

 private:
  std::vector<EventSlot> slots_;
  size_t head_ = 0;   // [engine mutex] oldest unread slot
  size_t count_ = 0;  // [engine mutex] unread slots
};
}  // namespace tessera

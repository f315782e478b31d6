#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera {

class RowPool;

// Gives a row back to its pool when the owner (an event slot, or a Float32Array JavaScript holds) lets go.
struct PooledRowDeleter {
  std::shared_ptr<RowPool> pool;
  void operator()(float* row) const;
};

// One vocabulary-sized row of a full logits capture.
using PooledRow = std::unique_ptr<float[], PooledRowDeleter>;

// The rows of full logits captures, kept for reuse by one context (issue 14). A full capture hands every
// token's row to JavaScript; a fresh allocation per row (or per batch, as before) was memory the process
// faulted in, and glibc returned to the system, over and over: on the 2-core AMD VM those page faults and
// unmaps, on the JavaScript thread, slowed the decode thread on the other core by 5-10% (docs/native.md,
// "Full captures"). Rows JavaScript lets go come back here when the garbage collector frees their
// Float32Array, and the next tokens reuse them, already in memory.
//
// Thread-safe: the decode thread takes rows for its slots, the JavaScript thread takes and returns them,
// and a Float32Array's finalizer may run after the context is gone (each row keeps its pool alive).
class RowPool : public std::enable_shared_from_this<RowPool> {
 public:
  // Rows of `floats` entries; at most retainBytes of returned rows are kept, the rest freed.
  static std::shared_ptr<RowPool> create(size_t floats, size_t retainBytes);
  ~RowPool();
  RowPool(const RowPool&) = delete;
  RowPool& operator=(const RowPool&) = delete;

  size_t floats() const { return floats_; }
  // A row (contents unspecified): a kept one when there is one, else a new allocation (std::bad_alloc when
  // that fails).
  PooledRow take();
  // Rows waiting for reuse, and rows ever allocated (tests and statistics: a stream of full captures that
  // reuses its rows stops allocating).
  size_t keptRows();
  uint64_t allocatedRows();

  // Rows handed to JavaScript come back only when Node runs their arrays' finalizers, on a later turn of
  // the event loop: a reader that never yields to it (every pull already resolved) would hold any number.
  // So at most as many rows as the pool keeps may be out at once; beyond that a pull copies into memory
  // JavaScript allocates (and the garbage collector frees by itself). tryHandOut reserves one (false: copy);
  // returnedFromJavaScript ends a reservation, from the array's finalizer or after a failed hand-out.
  bool tryHandOut();
  void returnedFromJavaScript();
  size_t handedOutRows();
  // The context was disposed: kept rows are freed now, and rows given back later are freed, not kept.
  void close();

 private:
  RowPool(size_t floats, size_t retainRows) : floats_(floats), retainRows_(retainRows) {}
  friend struct PooledRowDeleter;
  void give(float* row);

  const size_t floats_;
  const size_t retainRows_;
  std::mutex mutex_;
  std::vector<float*> kept_;  // [mutex_] most recently returned last: taken first, likeliest in cache
  uint64_t allocated_ = 0;    // [mutex_]
  size_t handedOut_ = 0;      // [mutex_] rows whose array JavaScript has not yet let go
  bool closed_ = false;       // [mutex_]
};
}  // namespace tessera

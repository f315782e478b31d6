#include "row-pool.h"

#include <algorithm>

namespace tessera {

void PooledRowDeleter::operator()(float* row) const {
  if (pool) {
    pool->give(row);
  } else {
    delete[] row;
  }
}

std::shared_ptr<RowPool> RowPool::create(size_t floats, size_t retainBytes) {
  const size_t rowBytes = std::max<size_t>(floats, 1) * sizeof(float);
  return std::shared_ptr<RowPool>(new RowPool(floats, retainBytes / rowBytes));
}

RowPool::~RowPool() {
  for (float* row : kept_) delete[] row;
}

PooledRow RowPool::take() {
  float* row = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!kept_.empty()) {
      row = kept_.back();
      kept_.pop_back();
    }
  }
  // Outside the lock: a new row is the slow case, and it may throw.
  if (row == nullptr) {
    row = new float[std::max<size_t>(floats_, 1)];
    std::lock_guard<std::mutex> lock(mutex_);
    allocated_++;
  }
  return PooledRow(row, PooledRowDeleter{shared_from_this()});
}

size_t RowPool::keptRows() {
  std::lock_guard<std::mutex> lock(mutex_);
  return kept_.size();
}

uint64_t RowPool::allocatedRows() {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocated_;
}

bool RowPool::tryHandOut() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (handedOut_ >= std::max<size_t>(retainRows_, 1)) return false;
  handedOut_++;
  return true;
}

void RowPool::returnedFromJavaScript() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (handedOut_ > 0) handedOut_--;
}

size_t RowPool::handedOutRows() {
  std::lock_guard<std::mutex> lock(mutex_);
  return handedOut_;
}

void RowPool::close() {
  std::vector<float*> rows;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    rows.swap(kept_);
  }
  for (float* row : rows) delete[] row;
}

void RowPool::give(float* row) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_ && kept_.size() < retainRows_) {
      // push_back may throw (no memory for the list itself): then the row is freed below instead.
      try {
        kept_.push_back(row);
        return;
      } catch (const std::bad_alloc&) {
      }
    }
  }
  delete[] row;
}
}  // namespace tessera

// DecodeEngine's sampling step: one row of logits in, one event written into the job's ring.
// Kept apart from the scheduling in decode-engine.cpp; the samplers themselves are in sampler-set.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "decode-engine.h"
#include "test-hooks.h"

namespace tessera {
void DecodeEngine::failProcessedRow(const std::shared_ptr<DecodeJob>& job, const char* cause,
                                    std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  failJob(job, "ERR_NON_FINITE_LOGITS",
          std::string("the processed logits became NaN or infinite at generated token ") +
              std::to_string(job->generated) + " (position " + std::to_string(job->position) +
              "): " + cause + " produced them from finite raw logits; use a larger temperature (or greedy) "
              "and finite penalties and biases",
          toNotify);
}

void DecodeEngine::sampleGuarded(const std::shared_ptr<DecodeJob>& job, const float* row,
                                 std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  // llama.cpp throws from samplers (a grammar that rejects an accepted token), from token_to_piece on a
  // bad vocabulary and on allocation failure. On this thread an escaping exception would terminate the
  // process; it fails this one job instead.
  try {
    sample(job, row, toNotify);
  } catch (const std::bad_alloc&) {
    failJob(job, "ERR_OUT_OF_MEMORY",
            "out of memory while sampling token " + std::to_string(job->generated) +
                "; capture fewer logits (rawTopK/processedTopK instead of full vectors) or lower queueCapacity",
            toNotify);
  } catch (const std::exception& error) {
    failJob(job, "ERR_NATIVE_EXCEPTION",
            std::string("llama.cpp failed while sampling token ") + std::to_string(job->generated) +
                ": " + error.what(),
            toNotify);
  }
}

void DecodeEngine::sample(const std::shared_ptr<DecodeJob>& jobPointer, const float* row,
                          std::vector<std::shared_ptr<DecodeJob>>& toNotify) {
  DecodeJob& job = *jobPointer;
  if (testhooks::fire(testhooks::Point::throwInSample)) {
    if (testhooks::value(testhooks::Point::throwInSampleKind) == 2) throw std::bad_alloc();
    throw std::runtime_error("injected by the throwInSample test hook");
  }
  const auto& config = job.config;
  const bool direct = job.direct();
  const bool greedyOnRow = job.greedyOnRow();
  // Every raw capture carries its log-sum-exp: one vectorized pass here, instead of a scalar one per
  // token in JavaScript for full vectors. On the greedy fast path nothing else reads it unless the
  // token's logprob or a processed capture is asked for (tokenLogprobs: see docs/native.md).
  const bool needRawLogSumExp = config.raw.mode != CaptureMode::off;
  const bool logSumExpUnused =
      greedyOnRow && !config.tokenLogprobs && config.processed.mode == CaptureMode::off;
  // DecodeJob::logSumExpOnPull: the pull computes it from the captured row.
  const bool computeLogSumExp = !job.logSumExpOnPull && (needRawLogSumExp || (direct && !logSumExpUnused));
  // One pass over the row for the finiteness check, its maximum and its arg-max (the greedy token), and
  // the log-sum-exp when it is read: separate passes cost ~10% of decode on small models. With the
  // log-sum-exp the pass also leaves each 32-entry block's maximum, which the top-k captures start from.
  // The sampler chain needs none of it, so it keeps the cheaper check alone.
  RowSummary scan{false, 0.0f, 0, 0.0f};
  if (computeLogSumExp) {
    scan = summarizeRow(row, vocabSize_, rowBlockMaxima_);
  } else if (greedyOnRow) {
    const RowScan rowScan = scanRow(row, vocabSize_);
    scan = RowSummary{rowScan.finite, rowScan.maximum, rowScan.argmax, 0.0f};
  } else {
    scan.finite = allFinite(row, vocabSize_);
  }
  const std::vector<float>* rowMaxima = computeLogSumExp ? &rowBlockMaxima_ : nullptr;
  if (!scan.finite) {
    failJob(jobPointer, "ERR_NON_FINITE_LOGITS",
            "the model produced NaN or infinite logits at generated token " + std::to_string(job.generated) +
                " (position " + std::to_string(job.position) +
                "); the model file is probably broken (bad weights or quantization scales)",
            toNotify);
    return;
  }

  EventSlot* nextSlot;
  {
    std::lock_guard<std::mutex> lock(mutex);
    // The slot stays the same while we fill it: pulls advance the read position and shrink the count
    // together, and only this thread pushes.
    nextSlot = &job.events.nextSlotLocked();
  }
  EventSlot& slot = *nextSlot;
  const float rawLogSumExp = computeLogSumExp ? scan.logSumExp : 0.0f;
  slot.raw.logSumExp = rawLogSumExp;

  if (config.raw.mode == CaptureMode::topK) {
    topKDense(row, vocabSize_, config.raw.topK, slot.raw, rowMaxima);
    // Every candidate survives unless the processing chain below removes it (no allocation after the
    // slot's first token: assign keeps the capacity).
    if (config.recordCutBy) slot.cutBy.assign(slot.raw.ids.size(), static_cast<uint8_t>(SamplerStage::none));
  } else if (config.raw.mode == CaptureMode::full) {
    // A slot takes a row from the context's pool when it is written without one (its first event, or
    // after a pull handed its row to JavaScript), so the ring holds only as many rows as events are
    // unread (the capacity is bounded against a byte budget at generate()).
    if (!slot.rawFull) slot.rawFull = rowPool_->take();
    std::memcpy(slot.rawFull.get(), row, sizeof(float) * static_cast<size_t>(vocabSize_));
  }
  // On the direct paths (no processing samplers) the processed row is the raw one: with both captured in
  // full, the pull copies the raw row twice instead of this thread copying it once more per token.
  // Only the two dense paths below: the sampler-chain path scatters its own processed row.
  slot.processedFullIsRaw = (greedyOnRow || (direct && job.samplers.isDenseDraw())) &&
                            config.raw.mode == CaptureMode::full && config.processed.mode == CaptureMode::full;
  if (config.processed.mode == CaptureMode::full && !slot.processedFullIsRaw && !slot.processedFull) {
    slot.processedFull = rowPool_->take();
  }

  llama_token token;
  float chosenLogit;
  float processedLogSumExp;
  if (job.samplers.isDenseDraw()) {
    // Seeded draw on the dense row (divided by the temperature when there is one): two vectorized
    // passes instead of llama.cpp's candidate array, temperature pass and scalar softmax.
    const float* processed = row;
    if (!direct) {
      divideDense(row, vocabSize_, job.samplers.denseTemperature(), job.processedRow.data());
      processed = job.processedRow.data();
      // A tiny temperature overflows finite logits to infinity (and their softmax to NaN).
      if (!allFinite(processed, vocabSize_)) {
        failProcessedRow(jobPointer, "the temperature", toNotify);
        return;
      }
    }
    processedLogSumExp = direct ? rawLogSumExp : logSumExpDense(processed, vocabSize_);
    token = drawFromDense(processed, vocabSize_, processedLogSumExp, job.samplers.drawUniform());
    chosenLogit = processed[token];
    if (config.processed.mode == CaptureMode::topK) {
      if (direct && config.raw.mode == CaptureMode::topK && config.raw.topK == config.processed.topK) {
        slot.processed = slot.raw;
      } else {
        topKDense(processed, vocabSize_, config.processed.topK, slot.processed, direct ? rowMaxima : nullptr);
      }
      slot.processed.logSumExp = processedLogSumExp;
    } else if (config.processed.mode == CaptureMode::full) {
      if (!slot.processedFullIsRaw) {
        std::memcpy(slot.processedFull.get(), processed, sizeof(float) * static_cast<size_t>(vocabSize_));
      }
      slot.processed.logSumExp = processedLogSumExp;
    }
  } else if (greedyOnRow) {
    // Greedy on untouched logits: no candidate array, no sort; the arg-max came with the scan above.
    token = scan.argmax;
    chosenLogit = row[token];
    processedLogSumExp = rawLogSumExp;
    if (config.processed.mode == CaptureMode::topK) {
      if (config.raw.mode == CaptureMode::topK && config.raw.topK == config.processed.topK) {
        slot.processed = slot.raw;
      } else {
        topKDense(row, vocabSize_, config.processed.topK, slot.processed, rowMaxima);
      }
      slot.processed.logSumExp = processedLogSumExp;
    } else if (config.processed.mode == CaptureMode::full) {
      if (!slot.processedFullIsRaw) {
        std::memcpy(slot.processedFull.get(), row, sizeof(float) * static_cast<size_t>(vocabSize_));
      }
      slot.processed.logSumExp = processedLogSumExp;
    }
  } else {
    auto& candidates = job.candidates;
    // Allocated on the first token that takes this path (384 KB on a 32k vocabulary): the dense paths
    // above never need it. A failed allocation ends the job with ERR_OUT_OF_MEMORY (sampleGuarded).
    if (candidates.size() != static_cast<size_t>(vocabSize_)) candidates.resize(static_cast<size_t>(vocabSize_));
    for (int32_t id = 0; id < vocabSize_; id++) candidates[static_cast<size_t>(id)] = llama_token_data{id, row[id], 0.0f};
    llama_token_data_array array{candidates.data(), candidates.size(), -1, false};
    CutByRecorder* recorder = nullptr;
    if (config.recordCutBy) {
      recorder = &job.cutBy;
      recorder->begin(slot.raw, slot.cutBy.data());
    }
    job.samplers.applyProcessing(array, recorder);
    if (recorder != nullptr) recorder->end();
    processedLogSumExp = direct ? rawLogSumExp : logSumExpCandidates(array);
    // -inf marks a token the chain removed; NaN or +inf means a sampler (temperature, penalties, bias)
    // broke the row, and sampling from it would give garbage tokens with NaN log-probabilities.
    if (std::isnan(processedLogSumExp)) {
      failProcessedRow(jobPointer, "the sampler chain", toNotify);
      return;
    }
    if (!(processedLogSumExp > -std::numeric_limits<float>::infinity())) {
      failJob(jobPointer, "ERR_NO_CANDIDATES",
              "the sampler chain (grammar, logit bias or truncation) left no token with a finite logit at "
              "generated token " + std::to_string(job.generated) + "; loosen the grammar or the bias",
              toNotify);
      return;
    }
    if (config.processed.mode == CaptureMode::topK) {
      topKCandidates(array, config.processed.topK, slot.processed);
      slot.processed.logSumExp = processedLogSumExp;
    } else if (config.processed.mode == CaptureMode::full) {
      scatterCandidates(array, slot.processedFull.get(), vocabSize_);
      slot.processed.logSumExp = processedLogSumExp;
    }
    job.samplers.applySelector(array);
    if (array.selected < 0 || static_cast<size_t>(array.selected) >= array.size) {
      failJob(jobPointer, "ERR_NO_CANDIDATES", "the selector chose no token", toNotify);
      return;
    }
    token = array.data[array.selected].id;
    chosenLogit = array.data[array.selected].logit;
  }
  slot.token = token;
  slot.logprob = config.tokenLogprobs ? chosenLogit - processedLogSumExp : std::numeric_limits<float>::quiet_NaN();
  slot.raw.chosenLogit = row[token];
  slot.processed.chosenLogit = chosenLogit;

  char pieceBuffer[128];
  int32_t pieceLength = llama_token_to_piece(vocab_, token, pieceBuffer, sizeof(pieceBuffer), 0, false);
  if (pieceLength >= 0) {
    slot.piece.assign(pieceBuffer, static_cast<size_t>(pieceLength));
  } else {
    slot.piece.resize(static_cast<size_t>(-pieceLength));
    pieceLength = llama_token_to_piece(vocab_, token, slot.piece.data(), -pieceLength, 0, false);
    slot.piece.resize(static_cast<size_t>(std::max(pieceLength, 0)));
  }

  job.samplers.accept(token);
  job.generated++;
  job.pendingToken = token;

  FinishReason reason = FinishReason::none;
  if (!config.ignoreEos && llama_vocab_is_eog(vocab_, token)) {
    reason = FinishReason::stop;
  } else if (config.maxTokens > 0 && job.generated >= config.maxTokens) {
    reason = FinishReason::length;
  } else if (job.position >= sequenceContextSize_) {
    reason = FinishReason::length;  // no cell left for the next token in this sequence
  }

  std::lock_guard<std::mutex> lock(mutex);
  job.events.pushLocked();
  const bool first = !job.hasFirstEvent;
  const Clock::time_point now = Clock::now();
  if (first) {
    job.hasFirstEvent = true;
    job.firstEventAt = now;
    yieldAfterNotify_ = true;
  }
  if (reason != FinishReason::none) {
    finishLocked(jobPointer, reason, nullptr, "", toNotify);
  } else if (job.pullWaiting) {
    if (!first && holdDeliveryLocked(job, now)) {
      heldWakeUps_++;
    } else {
      job.pullWaiting = false;
      job.notifyHeld = false;
      toNotify.push_back(jobPointer);
    }
  }
}

// Whether a waiting pull's wake-up may wait for the next step's event too: only while the step is short
// against the job's delivery delay, and only as long as the oldest held event stays within it. A step
// that will be long (a prefill chunk joining the batch) flushes held wake-ups first (step()).
bool DecodeEngine::holdDeliveryLocked(DecodeJob& job, Clock::time_point now) {
  const int64_t budget = job.config.deliveryDelayMicros;
  if (budget <= 0 || !job.events.hasRoomLocked()) return false;
  if (!job.notifyHeld) {
    if (lastStepMicros_ * 2 > budget) return false;
    job.notifyHeld = true;
    job.heldSince = now;
    return true;
  }
  const int64_t age = std::chrono::duration_cast<std::chrono::microseconds>(now - job.heldSince).count();
  return age + lastStepMicros_ <= budget;
}
}  // namespace tessera

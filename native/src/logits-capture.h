#pragma once
#include <cstdint>
#include <vector>

#include "llama.h"

namespace tessera {

enum class CaptureMode { off, topK, full };

struct CaptureConfig {
  CaptureMode mode = CaptureMode::off;
  int32_t topK = 0;
};

// What one step records about one logits vector (raw or processed).
struct TopKCapture {
  std::vector<int32_t> ids;     // k entries, best first; -1 pads when fewer candidates survive
  std::vector<float> logits;    // k entries; -inf pads
  float chosenLogit = 0;        // the selected token's value in this vector
  float logSumExp = 0;          // over the whole vector, so logprob = logit - logSumExp exactly
};

// log(sum(exp(x))) over a dense row, in double for exactness; -inf entries contribute nothing (-inf when
// all are -inf), and a NaN or +inf entry makes it NaN.
float logSumExpDense(const float* row, int32_t size);
// The same with the row's maximum already known (from scanRow): one pass instead of two.
float logSumExpWithMaximum(const float* row, int32_t size, float maximum);
// NaN when a candidate is NaN or +inf (a broken row); -inf when every candidate was removed.
float logSumExpCandidates(const llama_token_data_array& candidates);

// The k largest entries of a dense row (ids = indices), best first, ties by the lower id; -inf entries
// never count. The row must hold no NaN (callers check it first). Linear in the row for k up to ~size/32.
// blockMaxima, when given (summarizeRow's, for this very row), saves the pass that computes them.
void topKDense(const float* row, int32_t size, int32_t k, TopKCapture& out,
               const std::vector<float>* blockMaxima = nullptr);
void topKCandidates(const llama_token_data_array& candidates, int32_t k, TopKCapture& out);

// True when no entry is NaN or infinite.
bool allFinite(const float* row, int32_t size);
// allFinite, the maximum and argMaxDense of a row in one pass (maximum and argmax are meaningless when
// the row is not finite).
struct RowScan {
  bool finite;
  float maximum;
  int32_t argmax;
};
RowScan scanRow(const float* row, int32_t size);
// scanRow and the log-sum-exp in one pass, for the tokens whose row something reads beyond its arg-max (a
// capture, a draw, a logprob): each value is loaded once, and each 32-entry block's maximum is written to
// blockMaxima (size / 32 entries; the tail after the last whole block is not in it) for topKDense.
// logSumExp is -inf when the row is not finite (its other fields are then meaningless, as scanRow's).
struct RowSummary {
  bool finite;
  float maximum;
  int32_t argmax;
  float logSumExp;
};
RowSummary summarizeRow(const float* row, int32_t size, std::vector<float>& blockMaxima);
// Which form of the row passes (summarizeRow, logSumExpDense, topKDense up to k = 64) this process runs:
// "avx512" (the hand-written AVX-512 ones, on x86-64 CPUs with AVX512F and VL) or "vector-extensions" (the
// clones, or the portable code). Chosen during static initialization; nothing calls the passes before.
const char* rowPassForm();
// Index of the first largest entry (what llama.cpp's greedy sampler picks).
int32_t argMaxDense(const float* row, int32_t size);

// out[i] = row[i] / temperature (what llama.cpp's temperature sampler computes).
void divideDense(const float* row, int32_t size, float temperature, float* out);
// Draws index i with probability exp(logits[i] - logSumExp) for a uniform draw in [0, 1).
int32_t drawFromDense(const float* logits, int32_t size, float logSumExp, double uniform);

// Dense processed vector: -inf everywhere, then each surviving candidate's logit at its id.
void scatterCandidates(const llama_token_data_array& candidates, float* out, int32_t vocabSize);
}  // namespace tessera

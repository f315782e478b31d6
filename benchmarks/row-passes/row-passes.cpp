// Times the per-token row passes of native/src/logits-capture.cpp on real logits rows, the way the decode
// thread meets them: each row is first copied into one buffer (as llama.cpp writes its logits), then
// scanRow (greedy without captures), summarizeRow (scan + log-sum-exp + block maxima: captures, draws,
// logprobs), topKDense (k = 20, from summarizeRow's block maxima, and alone) and logSumExpDense
// (temperature draws, prompt logprobs). Rows rotate, so branch predictors do not learn one row. Built and
// run by benchmarks/row-passes.mjs. Prints medians in µs, and the form of the passes this CPU runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "logits-capture.h"

using namespace tessera;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: row-passes ROWS.bin VOCAB_SIZE [REPETITIONS]\n");
    return 2;
  }
  std::FILE* file = std::fopen(argv[1], "rb");
  if (file == nullptr) return 2;
  const int vocab = std::atoi(argv[2]);
  const int repetitions = argc > 3 ? std::atoi(argv[3]) : 4000;
  std::vector<float> rows;
  std::vector<float> buffer(static_cast<size_t>(vocab));
  while (std::fread(buffer.data(), sizeof(float), buffer.size(), file) == buffer.size()) {
    rows.insert(rows.end(), buffer.begin(), buffer.end());
  }
  std::fclose(file);
  const size_t count = rows.size() / static_cast<size_t>(vocab);
  if (count == 0) return 2;
  std::vector<double> scan, summary, topKGiven, topKAlone, dense;
  std::vector<float> blockMaxima;
  TopKCapture capture;
  volatile float sink = 0;
  using Clock = std::chrono::steady_clock;
  const auto micros = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::micro>(to - from).count();
  };
  for (int repetition = 0; repetition < repetitions; repetition++) {
    std::memcpy(buffer.data(), rows.data() + (static_cast<size_t>(repetition) % count) * static_cast<size_t>(vocab),
                sizeof(float) * static_cast<size_t>(vocab));
    const auto a = Clock::now();
    sink = sink + scanRow(buffer.data(), vocab).maximum;
    const auto b = Clock::now();
    sink = sink + summarizeRow(buffer.data(), vocab, blockMaxima).logSumExp;
    const auto c = Clock::now();
    topKDense(buffer.data(), vocab, 20, capture, &blockMaxima);
    const auto d = Clock::now();
    topKDense(buffer.data(), vocab, 20, capture);
    const auto e = Clock::now();
    sink = sink + logSumExpDense(buffer.data(), vocab);
    const auto f = Clock::now();
    sink = sink + capture.logits[0];
    if (repetition < repetitions / 10) continue;  // warm-up
    scan.push_back(micros(a, b));
    summary.push_back(micros(b, c));
    topKGiven.push_back(micros(c, d));
    topKAlone.push_back(micros(d, e));
    dense.push_back(micros(e, f));
  }
  const auto median = [](std::vector<double>& values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  std::printf("rows %zu, vocabulary %d, %s form: scanRow %.2f us, summarizeRow %.2f us, topKDense k=20 from its block "
              "maxima %.2f us, alone %.2f us, logSumExpDense %.2f us\n",
              count, vocab, rowPassForm(), median(scan), median(summary), median(topKGiven), median(topKAlone),
              median(dense));
  return 0;
}

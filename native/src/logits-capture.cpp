#include "logits-capture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>

// The row passes run on every generated token. On x86-64 Linux with GCC they are also compiled for
// x86-64-v3 (AVX2 + FMA: fused multiply-adds in the polynomial) and x86-64-v4 (AVX-512: the same eight-lane
// code with 32 registers and mask compares), one chosen at load time through an ifunc. On a 32k row here the
// scan and log-sum-exp went 35-38 → 19-20 µs with the v3 clone (docs/benchmarks.md), and summarizeRow
// 10.7 → 9.1 µs with the v4 one (docs/native.md). Sixteen-lane vectors in the v4 clone were slower
// (11.6 µs). Elsewhere the portable code is all there is.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define TESSERA_ROW_PASS __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TESSERA_ROW_PASS
#endif

// The passes every capture pays for (summarizeRow, logSumExpDense, topKDense for k up to 64) also have
// hand-written AVX-512 forms (AVX512F + VL on eight-lane registers), chosen at load time where the CPU and
// the OS support them. The clones above are the same vector-extension code compiled three ways; these are
// written for the instructions: vrndscaleps and vscalefps build 2^t in fewer operations, the running maximum
// moves once per four blocks, and top-k compresses its candidates in registers instead of branching per
// block (issue 14: on the AMD VM the passes were a top-20 capture's whole cost, 3.5% of tiny's decode step;
// docs/native.md, "The row passes in AVX-512"). Define TESSERA_ROW_PASS_NO_AVX512 to leave them out (the
// tests compile the clones alone that way).
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11 && \
    !defined(TESSERA_ROW_PASS_NO_AVX512)
#define TESSERA_AVX512_ROW_PASS 1
#include <immintrin.h>
#define TESSERA_AVX512 __attribute__((target("avx2,fma,avx512f,avx512vl")))
#else
#define TESSERA_AVX512_ROW_PASS 0
#endif

namespace tessera {
namespace {
constexpr float negativeInfinity = -std::numeric_limits<float>::infinity();

// exp(x) for x <= 0 (NaN-free input), four lanes at a time with GCC/Clang vector extensions (SSE2 or
// NEON, no -ffast-math, which would break the -inf handling elsewhere): 2^(x log2 e) split into an
// integer power built in the exponent bits and a degree-6 polynomial for 2^f, f in [-0.5, 0.5].
// Relative error ~2e-7; inputs below -87 (including -inf) give ~1e-38 instead of 0, which no
// log-sum-exp over a vocabulary can notice.
typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));

// Eight lanes for the log-sum-exp pass: one AVX register in its x86-64-v3 clone (below), two SSE ones
// otherwise. Always inlined, and by reference, so no 32-byte vector is passed by value across a call
// (whose ABI depends on AVX: -Wpsabi).
typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int8 __attribute__((vector_size(32)));
typedef uint32_t Uint8 __attribute__((vector_size(32)));

template <typename Floats, typename Ints>
__attribute__((always_inline)) inline void exponentOfNonPositiveLanes(const Floats& input, Floats& out) {
  const Floats lowest = Floats{} - 87.0f;
  const Floats x = input < lowest ? lowest : input;
  const Floats t = x * 1.44269504088896341f;
  const Ints whole = -__builtin_convertvector(0.5f - t, Ints);  // round(t) for t <= 0
  const Floats f = t - __builtin_convertvector(whole, Floats);
  const Floats power =
      1.0f + f * (0.693147182f + f * (0.240226507f + f * (0.0555041086f + f * (0.00961812911f + f * (0.00133335581f + f * 0.000154035304f)))));
  const Ints bits = (whole + 127) << 23;
  Floats scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  out = power * scale;
}

inline Float4 exponentOfNonPositive(Float4 x) {
  Float4 result;
  exponentOfNonPositiveLanes<Float4, Int4>(x, result);
  return result;
}

inline float exponentOfNonPositive(float x) {
  const Float4 lanes = {x, 0.0f, 0.0f, 0.0f};
  return exponentOfNonPositive(lanes)[0];
}

inline Float4 load4(const float* values) {
  Float4 loaded;
  std::memcpy(&loaded, values, sizeof(loaded));
  return loaded;
}

inline float maximumOf(const float* row, int32_t size) {
  Float4 maxima = {negativeInfinity, negativeInfinity, negativeInfinity, negativeInfinity};
  int32_t index = 0;
  for (; index + 4 <= size; index += 4) {
    const Float4 values = load4(row + index);
    maxima = values > maxima ? values : maxima;
  }
  float maximum = std::max(std::max(maxima[0], maxima[1]), std::max(maxima[2], maxima[3]));
  for (; index < size; index++) maximum = std::max(maximum, row[index]);
  return maximum;
}

// A min-heap of (logit, id) holding the best k seen so far.
using HeapEntries = std::vector<std::pair<float, int32_t>>;

// One buffer per thread, kept: a capture runs on every token, and a vector of its own was an allocation per
// token and capture. Heaps never overlap on a thread (each is written out before the next is made).
HeapEntries& heapScratch() {
  thread_local HeapEntries entries;
  return entries;
}

class TopKHeap {
 public:
  explicit TopKHeap(int32_t k) : k_(k), entries_(heapScratch()) {
    entries_.clear();
    entries_.reserve(static_cast<size_t>(std::max(k, 0)));
  }
  void offer(float logit, int32_t id) {
    if (k_ <= 0 || logit == negativeInfinity || std::isnan(logit)) return;
    if (static_cast<int32_t>(entries_.size()) < k_) {
      entries_.emplace_back(logit, id);
      std::push_heap(entries_.begin(), entries_.end(), greater);
    } else if (logit > entries_.front().first) {
      std::pop_heap(entries_.begin(), entries_.end(), greater);
      entries_.back() = {logit, id};
      std::push_heap(entries_.begin(), entries_.end(), greater);
    }
  }
  bool full() const { return static_cast<int32_t>(entries_.size()) >= k_; }
  float threshold() const { return entries_.front().first; }
  void write(TopKCapture& out) {
    std::sort(entries_.begin(), entries_.end(), greater);
    out.ids.assign(static_cast<size_t>(k_), -1);
    out.logits.assign(static_cast<size_t>(k_), negativeInfinity);
    for (size_t i = 0; i < entries_.size(); i++) {
      out.logits[i] = entries_[i].first;
      out.ids[i] = entries_[i].second;
    }
  }

 private:
  static bool greater(const std::pair<float, int32_t>& a, const std::pair<float, int32_t>& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }
  int32_t k_;
  HeapEntries& entries_;
};
}  // namespace

// 2^t for t <= 0, eight lanes: fewer operations than exponentOfNonPositiveLanes, which these passes are
// bound by (they issue floating-point operations on every port each cycle; nothing waits on memory).
// Rounding by the 1.5 × 2^23 trick leaves round(t) in the low mantissa bits, so shifting those bits into the
// exponent field builds 2^round(t) without a conversion; the degree-5 polynomial for 2^f, f in
// [-0.5, 0.5], has a relative error of ~2.3e-7 (~4e-7 in single precision). Inputs below -125 (-inf
// included) give ~2^-125 instead of 0, which no sum over a vocabulary can notice. t must not be positive:
// callers form it as (x - maximum) × log2 e, never as x × log2 e - maximum × log2 e in one fused
// multiply-add, whose rounding error made t for the maximum itself positive, above 127 once the logits
// reached ~1.5e9 (the exponent bits then spilled into the sign: inf or NaN sums on finite rows), and whose
// offset overflowed for a block at -3e38.
__attribute__((always_inline)) inline void exponent2OfNonPositiveLanes(const Float8& input, Float8& out) {
  const Float8 lowest = Float8{} - 125.0f;
  const Float8 t = input < lowest ? lowest : input;
  const Float8 magic = Float8{} + 12582912.0f;
  const Float8 shifted = t + magic;
  const Float8 f = t - (shifted - magic);
  // Unsigned, so the shift that drops the high bits wraps by definition: the low 9 bits of the mantissa
  // hold round(t) modulo 512, and round(t) + 127 lands in the exponent field, sign bit clear.
  Uint8 whole;
  std::memcpy(&whole, &shifted, sizeof(whole));
  const Uint8 bits = (whole << 23) + (127u << 23);
  Float8 scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  const Float8 power =
      1.00000005f + f * (0.6931472f + f * (0.24022212f + f * (0.05550341f + f * (0.00967077f + f * 0.00133953f))));
  out = power * scale;
}

TESSERA_ROW_PASS float logSumExpWithMaximum(const float* row, int32_t size, float maximum) {
  // Every entry -inf, or NaN: maximumOf passes over NaN, so a row of NaN and -inf alone comes here too, and
  // any NaN makes the log-sum-exp NaN (as the sum below does when the maximum is finite).
  if (maximum == negativeInfinity) {
    const bool anyNaN = std::any_of(row, row + std::max(size, 0), [](float value) { return std::isnan(value); });
    return anyNaN ? std::numeric_limits<float>::quiet_NaN() : negativeInfinity;
  }
  constexpr float log2e = 1.44269504088896341f;
  Float8 first = {};
  Float8 second = {};
  int32_t index = 0;
  for (; index + 16 <= size; index += 16) {
    Float8 a;
    Float8 b;
    std::memcpy(&a, row + index, sizeof(a));
    std::memcpy(&b, row + index + 8, sizeof(b));
    Float8 exponentials;
    exponent2OfNonPositiveLanes((a - maximum) * log2e, exponentials);
    first += exponentials;
    exponent2OfNonPositiveLanes((b - maximum) * log2e, exponentials);
    second += exponentials;
  }
  double sum = 0;
  for (int lane = 0; lane < 8; lane++) sum += static_cast<double>(first[lane]) + second[lane];
  for (; index < size; index++) sum += exponentOfNonPositive(row[index] - maximum);
  return maximum + static_cast<float>(std::log(sum));
}

float logSumExpCandidates(const llama_token_data_array& candidates) {
  float maximum = negativeInfinity;
  bool broken = false;  // NaN or +inf: checked in the pass that finds the maximum, not in one of its own
  for (size_t i = 0; i < candidates.size; i++) {
    const float logit = candidates.data[i].logit;
    broken |= std::isnan(logit) || logit == std::numeric_limits<float>::infinity();
    maximum = std::max(maximum, logit);
  }
  if (broken) return std::numeric_limits<float>::quiet_NaN();
  if (maximum == negativeInfinity) return negativeInfinity;
  Float4 sums = {0, 0, 0, 0};
  size_t index = 0;
  for (; index + 4 <= candidates.size; index += 4) {
    const llama_token_data* data = candidates.data + index;
    const Float4 values = {data[0].logit, data[1].logit, data[2].logit, data[3].logit};
    sums += exponentOfNonPositive(values - maximum);
  }
  double sum = static_cast<double>(sums[0]) + sums[1] + sums[2] + sums[3];
  for (; index < candidates.size; index++) sum += exponentOfNonPositive(candidates.data[index].logit - maximum);
  return maximum + static_cast<float>(std::log(sum));
}

namespace {
constexpr int32_t maximaBlock = 32;

// Four eight-lane loads, a max tree and one horizontal step. Four separate loads: a memcpy of the whole block
// into an array of vectors went through the stack in 16-byte halves and stalled every block on store
// forwarding (3× slower). A NaN may drop out of the maximum; callers rule NaN rows out first.
__attribute__((always_inline)) inline void loadBlock(const float* values, Float8& a, Float8& b, Float8& c, Float8& d) {
  std::memcpy(&a, values, sizeof(a));
  std::memcpy(&b, values + 8, sizeof(b));
  std::memcpy(&c, values + 16, sizeof(c));
  std::memcpy(&d, values + 24, sizeof(d));
}

// Out-parameters rather than vector returns: these also inline into the portable clone, where a returned
// eight-lane vector would change the calling convention (and GCC says so).
__attribute__((always_inline)) inline void laneMaxima(const Float8& a, const Float8& b, const Float8& c,
                                                       const Float8& d, Float8& lanes) {
  const Float8 ab = a > b ? a : b;
  const Float8 cd = c > d ? c : d;
  lanes = ab > cd ? ab : cd;
}

__attribute__((always_inline)) inline float horizontalMaximum(const Float8& lanes) {
  float maximum = lanes[0];
  for (int lane = 1; lane < 8; lane++) maximum = lanes[lane] > maximum ? lanes[lane] : maximum;
  return maximum;
}

__attribute__((always_inline)) inline float maximumOfBlock(const Float8& a, const Float8& b, const Float8& c,
                                                           const Float8& d) {
  Float8 lanes;
  laneMaxima(a, b, c, d, lanes);
  return horizontalMaximum(lanes);
}

// The finiteness check of scanRow and summarizeRow: x × 0 is 0 for finite x and NaN for NaN or ±inf, and
// NaN survives the sums; one accumulator per load of a block, so that no chain waits on another (a fused
// multiply-add each in the AVX2 clone).
struct FiniteCheck {
  Float8 a = {};
  Float8 b = {};
  Float8 c = {};
  Float8 d = {};

  __attribute__((always_inline)) void add(const Float8& x, const Float8& y, const Float8& z, const Float8& w) {
    const Float8 zero = {};
    a = x * zero + a;
    b = y * zero + b;
    c = z * zero + c;
    d = w * zero + d;
  }
  // 0 for a finite row; NaN otherwise.
  __attribute__((always_inline)) float total() const {
    const Float8 sum = (a + b) + (c + d);
    float result = 0.0f;
    for (int lane = 0; lane < 8; lane++) result += sum[lane];
    return result;
  }
};

// One 32-entry block of scanRow: folded into the finiteness check, and its lane-wise maxima.
__attribute__((always_inline)) inline void checkedLaneMaxima(const float* block, FiniteCheck& check, Float8& lanes) {
  Float8 a;
  Float8 b;
  Float8 c;
  Float8 d;
  loadBlock(block, a, b, c, d);
  check.add(a, b, c, d);
  laneMaxima(a, b, c, d, lanes);
}

struct TopKScratch {
  std::vector<float> blockMaxima;
  std::vector<float> groupMaxima;
  std::vector<float> reachingMaxima;
  std::vector<std::pair<float, int32_t>> candidates;
  std::vector<float> candidateValues;  // the AVX-512 form's compressed candidates, before they become pairs
  std::vector<int32_t> candidateIds;
};

// One set per thread, kept: a capture runs on every token. Taken by reference once per call, so the loops
// never go through the thread_local's access wrapper.
TopKScratch& topKScratch() {
  thread_local TopKScratch scratch;
  return scratch;
}

bool betterCandidate(const std::pair<float, int32_t>& a, const std::pair<float, int32_t>& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}
}  // namespace

namespace {
// What summarizeRow's forms and logSumExpDense's AVX-512 form do after their vector loop: the entries after
// the last whole block, and the log-sum-exp. checkTotal is 0 for a finite row so far (NaN otherwise); sum
// is of exp(x - running) over the blocks. The arg-max is left at 0: finishSummary looks for it, and
// logSumExpDense, on every token of a temperature draw, does not pay for that scan. A finite row's running
// maximum is finite, or -inf for an empty row, whose log-sum-exp comes out as -inf + log(0) = -inf.
RowSummary finishLogSumExp(const float* row, int32_t size, int32_t blocks, float checkTotal, double sum,
                           float running) {
  float total = checkTotal;
  for (int32_t index = blocks * maximaBlock; index < size; index++) {
    const float value = row[index];
    total += value * 0.0f;
    if (value > running) {
      sum = running == negativeInfinity ? 0.0 : sum * std::exp(static_cast<double>(running) - value);
      running = value;
    }
    sum += std::exp(static_cast<double>(value) - running);
  }
  RowSummary summary{total == 0.0f, running, 0, negativeInfinity};
  if (summary.finite) summary.logSumExp = running + static_cast<float>(std::log(sum));
  return summary;
}

// summarizeRow's ending: the log-sum-exp, and the first arg-max (in the first block whose maximum it is, or
// else in the tail).
RowSummary finishSummary(const float* row, int32_t size, const std::vector<float>& blockMaxima, float checkTotal,
                         double sum, float running) {
  const int32_t blocks = static_cast<int32_t>(blockMaxima.size());
  RowSummary summary = finishLogSumExp(row, size, blocks, checkTotal, sum, running);
  // (An empty row has no entry to look for: neither loop below runs.)
  if (!summary.finite) return summary;
  int32_t from = blocks * maximaBlock;
  for (int32_t at = 0; at < blocks; at++) {
    if (blockMaxima[static_cast<size_t>(at)] == summary.maximum) {
      from = at * maximaBlock;
      break;
    }
  }
  for (int32_t index = from; index < size; index++) {
    if (row[index] == summary.maximum) {
      summary.argmax = index;
      break;
    }
  }
  return summary;
}

#if TESSERA_AVX512_ROW_PASS
// sum + exp(x - running) for eight lanes, as 2^t with t = (x - running) × log2 e: t = n + f with n = round(t)
// by vrndscaleps, the degree-5 polynomial of exponent2OfNonPositiveLanes for 2^f, times 2^n (vscalefps of
// 1, exact) in the fused multiply-add that adds it to the sum. Far below the maximum 2^n is a denormal,
// which summarizeBlocksAvx512 has flushed to 0 (the portable lanes clamp at 2^-125 instead). Unclamped, a
// lane's term is NaN when x is NaN or ±inf, or when t overflows to -inf (finite logits more than
// FLT_MAX / log2 e ≈ 2.4e38 apart): -inf gives n = -inf and f = NaN, and NaN × 0 is NaN (vscalefps of the NaN
// polynomial itself by -inf would give 0). So a finite sum proves the row finite, with no check of its own.
TESSERA_AVX512 __attribute__((always_inline)) inline __m256 addExponentAvx512(__m256 sum, __m256 x, __m256 running) {
  const __m256 t = _mm256_mul_ps(_mm256_sub_ps(x, running), _mm256_set1_ps(1.44269504088896341f));
  const __m256 whole = _mm256_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 f = _mm256_sub_ps(t, whole);
  __m256 power = _mm256_fmadd_ps(_mm256_set1_ps(0.00133953f), f, _mm256_set1_ps(0.00967077f));
  power = _mm256_fmadd_ps(power, f, _mm256_set1_ps(0.05550341f));
  power = _mm256_fmadd_ps(power, f, _mm256_set1_ps(0.24022212f));
  power = _mm256_fmadd_ps(power, f, _mm256_set1_ps(0.6931472f));
  power = _mm256_fmadd_ps(power, f, _mm256_set1_ps(1.00000005f));
  return _mm256_fmadd_ps(power, _mm256_scalef_ps(_mm256_set1_ps(1.0f), whole), sum);
}

// The largest lane of a 128-bit vector.
TESSERA_AVX512 __attribute__((always_inline)) inline float largestLane(__m128 lanes) {
  const __m128 pairs = _mm_max_ps(lanes, _mm_movehl_ps(lanes, lanes));
  return _mm_cvtss_f32(_mm_max_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
}

struct Avx512Sums {
  __m256 sums[4];
  float running = negativeInfinity;
  __m256 runningLanes;

  TESSERA_AVX512 __attribute__((always_inline)) bool anyNaN() const {
    const __m256 total = _mm256_add_ps(_mm256_add_ps(sums[0], sums[1]), _mm256_add_ps(sums[2], sums[3]));
    return _mm256_cmp_ps_mask(total, total, _CMP_UNORD_Q) != 0;
  }

  // A new running maximum: the sums so far are rescaled to it (0 when there was none).
  TESSERA_AVX512 __attribute__((always_inline)) void raise(float maximum) {
    const float scale =
        running == negativeInfinity ? 0.0f : static_cast<float>(std::exp(static_cast<double>(running) - maximum));
    const __m256 scales = _mm256_set1_ps(scale);
    for (__m256& sum : sums) sum = _mm256_mul_ps(sum, scales);
    running = maximum;
    runningLanes = _mm256_set1_ps(maximum);
  }

  // The terms of `count` loaded vectors (whole blocks), four sums in turn so that the multiply-adds overlap.
  TESSERA_AVX512 __attribute__((always_inline)) void add(const __m256* values, int count) {
    for (int index = 0; index < count; index++)
      sums[index & 3] = addExponentAvx512(sums[index & 3], values[index], runningLanes);
  }
};

// One 32-entry block's four vectors, and their lane maxima.
TESSERA_AVX512 __attribute__((always_inline)) inline __m256 loadBlockAvx512(const float* block, __m256* values) {
  for (int index = 0; index < 4; index++) values[index] = _mm256_loadu_ps(block + 8 * index);
  return _mm256_max_ps(_mm256_max_ps(values[0], values[1]), _mm256_max_ps(values[2], values[3]));
}

// summarizeRow's whole blocks: false when the sum is not finite, which a row with NaN or ±inf always gives
// (addExponentAvx512), and finite logits more than ~2.4e38 apart as well; the caller then runs the portable
// form, whose check and clamp sort those out. Without them each eight entries take two operations fewer.
TESSERA_AVX512 bool summarizeBlocksAvx512(const float* row, int32_t size, std::vector<float>& blockMaxima,
                                          double& sum, float& running) {
  const int32_t blocks = std::max(size, 0) / maximaBlock;
  blockMaxima.resize(static_cast<size_t>(blocks));
  float* maxima = blockMaxima.data();
  // Flush-to-zero for this pass only (MXCSR is per thread, and restored below; nothing in between throws):
  // the terms of entries more than ~87 nats below the maximum are denormals, which Intel's documentation says
  // its cores may compute through microcode assists (not measured: only an AMD core was at hand), and which
  // no sum over a vocabulary can notice. Not denormals-are-zero: that would change the maxima of rows holding
  // denormal logits.
  const unsigned int control = _mm_getcsr();
  _mm_setcsr(control | _MM_FLUSH_ZERO_ON);
  Avx512Sums state;
  for (__m256& lanes : state.sums) lanes = _mm256_setzero_ps();
  state.runningLanes = _mm256_set1_ps(negativeInfinity);
  int32_t at = 0;
  // Four blocks (128 entries, sixteen registers) at a time: their lane maxima reduced to the four block
  // maxima together (two unpacks, two shuffles, one extract), one compare with the running maximum per group.
  for (; at + 4 <= blocks; at += 4) {
    const float* group = row + static_cast<size_t>(at) * maximaBlock;
    __m256 values[16];
    __m256 lanes[4];
    for (int block = 0; block < 4; block++) lanes[block] = loadBlockAvx512(group + maximaBlock * block, values + 4 * block);
    // Per 128-bit half: [b0 (0,2), b1 (0,2), b0 (1,3), b1 (1,3)] and the same for blocks 2 and 3, then
    // [b0, b1, b2, b3] of that half's lanes; the two halves' maxima are the four blocks'.
    const __m256 first = _mm256_max_ps(_mm256_unpacklo_ps(lanes[0], lanes[1]), _mm256_unpackhi_ps(lanes[0], lanes[1]));
    const __m256 second = _mm256_max_ps(_mm256_unpacklo_ps(lanes[2], lanes[3]), _mm256_unpackhi_ps(lanes[2], lanes[3]));
    const __m256 halves = _mm256_max_ps(_mm256_shuffle_ps(first, second, _MM_SHUFFLE(1, 0, 1, 0)),
                                        _mm256_shuffle_ps(first, second, _MM_SHUFFLE(3, 2, 3, 2)));
    const __m128 four = _mm_max_ps(_mm256_castps256_ps128(halves), _mm256_extractf128_ps(halves, 1));
    _mm_storeu_ps(maxima + at, four);
    const float maximum = largestLane(four);
    if (maximum > state.running) state.raise(maximum);
    state.add(values, 16);
    // Every 32 groups (4,096 entries), a NaN sum gives up at once: the portable form runs the row anyway, and
    // logSumExpDense's rows with -inf entries (which count as nothing there) paid for both whole passes.
    if ((at & 127) == 124 && state.anyNaN()) {
      _mm_setcsr(control);
      return false;
    }
  }
  // The last whole blocks, one at a time.
  for (; at < blocks; at++) {
    __m256 values[4];
    const __m256 lanes = loadBlockAvx512(row + static_cast<size_t>(at) * maximaBlock, values);
    const float maximum = largestLane(_mm_max_ps(_mm256_castps256_ps128(lanes), _mm256_extractf128_ps(lanes, 1)));
    maxima[at] = maximum;
    if (maximum > state.running) state.raise(maximum);
    state.add(values, 4);
  }
  alignas(32) float sumLanes[4][8];
  for (int lane = 0; lane < 4; lane++) _mm256_store_ps(sumLanes[lane], state.sums[lane]);
  sum = 0;
  for (int lane = 0; lane < 8; lane++) {
    sum += (static_cast<double>(sumLanes[0][lane]) + sumLanes[1][lane]) +
           (static_cast<double>(sumLanes[2][lane]) + sumLanes[3][lane]);
  }
  _mm_setcsr(control);
  running = state.running;
  return std::isfinite(sum);
}

// __builtin_cpu_supports checks the OS's support (XCR0) as well as the CPU's.
bool detectAvx512RowPass() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
const bool avx512RowPass = detectAvx512RowPass();
#endif
}  // namespace

float logSumExpDense(const float* row, int32_t size) {
#if TESSERA_AVX512_ROW_PASS
  // The AVX-512 pass where it proves the row finite (a temperature draw's row, a prompt token's logprob); a
  // row with -inf entries (which count as nothing here) or NaN takes the portable passes.
  if (avx512RowPass) {
    thread_local std::vector<float> blockMaxima;
    double sum;
    float running;
    if (summarizeBlocksAvx512(row, size, blockMaxima, sum, running)) {
      const RowSummary summary =
          finishLogSumExp(row, size, static_cast<int32_t>(blockMaxima.size()), 0.0f, sum, running);
      if (summary.finite) return summary.logSumExp;
    }
  }
#endif
  return logSumExpWithMaximum(row, size, maximumOf(row, size));
}

const char* rowPassForm() {
#if TESSERA_AVX512_ROW_PASS
  if (avx512RowPass) return "avx512";
#endif
  return "vector-extensions";
}

TESSERA_ROW_PASS RowSummary summarizeRow(const float* row, int32_t size, std::vector<float>& blockMaxima) {
#if TESSERA_AVX512_ROW_PASS
  if (avx512RowPass) {
    double sum;
    float running;
    if (summarizeBlocksAvx512(row, size, blockMaxima, sum, running))
      return finishSummary(row, size, blockMaxima, 0.0f, sum, running);
  }
#endif
  const int32_t blocks = std::max(size, 0) / maximaBlock;
  blockMaxima.resize(static_cast<size_t>(blocks));
  constexpr float log2e = 1.44269504088896341f;
  FiniteCheck check;
  Float8 sumA = {};
  Float8 sumB = {};
  // The sums are of exp(x - running) for the running maximum so far: a block that raises it first scales
  // them by exp(old - new), which happens a handful of times per row (each new record), not per block.
  float running = negativeInfinity;
  for (int32_t at = 0; at < blocks; at++) {
    Float8 a;
    Float8 b;
    Float8 c;
    Float8 d;
    loadBlock(row + static_cast<size_t>(at) * maximaBlock, a, b, c, d);
    check.add(a, b, c, d);
    const float maximum = maximumOfBlock(a, b, c, d);
    blockMaxima[static_cast<size_t>(at)] = maximum;
    if (maximum > running) {
      const float scale = running == negativeInfinity ? 0.0f : static_cast<float>(std::exp(static_cast<double>(running) - maximum));
      sumA *= scale;
      sumB *= scale;
      running = maximum;
    }
    Float8 exponentials;
    exponent2OfNonPositiveLanes((a - running) * log2e, exponentials);
    sumA += exponentials;
    exponent2OfNonPositiveLanes((b - running) * log2e, exponentials);
    sumB += exponentials;
    exponent2OfNonPositiveLanes((c - running) * log2e, exponentials);
    sumA += exponentials;
    exponent2OfNonPositiveLanes((d - running) * log2e, exponentials);
    sumB += exponentials;
  }
  double sum = 0;
  for (int lane = 0; lane < 8; lane++) sum += static_cast<double>(sumA[lane]) + sumB[lane];
  return finishSummary(row, size, blockMaxima, check.total(), sum, running);
}

namespace {
// The best `wanted` of count candidates, best first, into out (padded with -1 / -inf).
void writeBest(std::vector<std::pair<float, int32_t>>& candidates, size_t count, int32_t wanted, TopKCapture& out) {
  const auto found = candidates.begin() + static_cast<std::ptrdiff_t>(count);
  const size_t keep = std::min(count, static_cast<size_t>(wanted));
  if (keep < count) {
    std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep), found, betterCandidate);
  }
  std::sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep), betterCandidate);
  out.ids.assign(static_cast<size_t>(wanted), -1);
  out.logits.assign(static_cast<size_t>(wanted), negativeInfinity);
  for (size_t i = 0; i < keep; i++) {
    out.logits[i] = candidates[i].first;
    out.ids[i] = candidates[i].second;
  }
}

#if TESSERA_AVX512_ROW_PASS
// The most groups (in eights) the AVX-512 form deals the block maxima into: k up to 64.
constexpr int32_t avx512TopKVectors = 8;

// One block's entries at or above the threshold (never -inf), compressed to values/ids from `found` on;
// returns the new count.
TESSERA_AVX512 __attribute__((always_inline)) inline size_t takeBlockAvx512(const float* row, int32_t block,
                                                                            __m256 thresholds, float* values,
                                                                            int32_t* ids, size_t found) {
  const __m256 lowest = _mm256_set1_ps(negativeInfinity);
  const int32_t first = block * maximaBlock;
  for (int32_t part = 0; part < maximaBlock / 8; part++) {
    const __m256 entries = _mm256_loadu_ps(row + first + 8 * part);
    const __mmask8 reached = _mm256_cmp_ps_mask(entries, thresholds, _CMP_GE_OQ);
    const __mmask8 taken = _mm256_mask_cmp_ps_mask(reached, entries, lowest, _CMP_NEQ_OQ);
    _mm256_storeu_ps(values + found, _mm256_maskz_compress_ps(taken, entries));
    const __m256i entryIds = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(first + 8 * part));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ids + found), _mm256_maskz_compress_epi32(taken, entryIds));
    found += static_cast<size_t>(__builtin_popcount(taken));
  }
  return found;
}

// topKDense's three passes over the block maxima and its candidates, eight lanes at a time (for k up to 64,
// with at least k rounded up to eight blocks): the groups of the lower bound are 8·⌈k/8⌉ interleaved ones,
// one lane each, so the pass is a vertical maximum; the maxima reaching the bound and the entries reaching
// the threshold are compressed into place (vcompressps in a register, then a plain store: Zen 4 runs the
// compressing store to memory in microcode), and only the blocks that reach the threshold are visited, one
// bit of a compare mask each, instead of a branch per block. The same threshold and the same candidates as
// the portable form, so the same result.
TESSERA_AVX512 void topKDenseAvx512(const float* row, int32_t size, int32_t wanted, TopKCapture& out,
                                    const std::vector<float>& blockMaxima, TopKScratch& scratch) {
  const int32_t blocks = static_cast<int32_t>(blockMaxima.size());
  const float* maxima = blockMaxima.data();
  const int32_t vectors = (wanted + 7) / 8;
  const int32_t groups = vectors * 8;
  const __m256 lowest = _mm256_set1_ps(negativeInfinity);
  __m256 best[avx512TopKVectors];
  for (__m256& group : best) group = lowest;
  int32_t at = 0;
  for (; at + groups <= blocks; at += groups) {
    for (int32_t vector = 0; vector < vectors; vector++)
      best[vector] = _mm256_max_ps(best[vector], _mm256_loadu_ps(maxima + at + 8 * vector));
  }
  // The last blocks (fewer than the groups) go to the first groups; every group already has one.
  for (int32_t vector = 0; at + 8 * vector < blocks; vector++) {
    const int32_t left = blocks - (at + 8 * vector);
    const __mmask8 mask = left >= 8 ? static_cast<__mmask8>(0xff) : static_cast<__mmask8>((1u << left) - 1);
    best[vector] = _mm256_max_ps(best[vector], _mm256_mask_loadu_ps(lowest, mask, maxima + at + 8 * vector));
  }
  __m256 smallest = best[0];
  for (int32_t vector = 1; vector < vectors; vector++) smallest = _mm256_min_ps(smallest, best[vector]);
  const __m128 halves = _mm_min_ps(_mm256_castps256_ps128(smallest), _mm256_extractf128_ps(smallest, 1));
  const __m128 pairs = _mm_min_ps(halves, _mm_movehl_ps(halves, halves));
  const float bound = _mm_cvtss_f32(_mm_min_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));

  // The block maxima at or above the bound (at least k of them).
  std::vector<float>& reaching = scratch.reachingMaxima;
  if (reaching.size() < static_cast<size_t>(blocks) + 8) reaching.resize(static_cast<size_t>(blocks) + 8);
  const __m256 bounds = _mm256_set1_ps(bound);
  size_t count = 0;
  for (at = 0; at + 8 <= blocks; at += 8) {
    const __m256 values = _mm256_loadu_ps(maxima + at);
    const __mmask8 mask = _mm256_cmp_ps_mask(values, bounds, _CMP_GE_OQ);
    _mm256_storeu_ps(reaching.data() + count, _mm256_maskz_compress_ps(mask, values));
    count += static_cast<size_t>(__builtin_popcount(mask));
  }
  for (; at < blocks; at++) {
    reaching[count] = maxima[at];
    count += maxima[at] >= bound ? 1 : 0;
  }
  std::nth_element(reaching.begin(), reaching.begin() + (wanted - 1), reaching.begin() + static_cast<std::ptrdiff_t>(count),
                   std::greater<float>());
  const float threshold = reaching[static_cast<size_t>(wanted - 1)];

  // The entries at or above the threshold (never -inf) in the blocks that reach it, and in the tail.
  if (scratch.candidateValues.size() < static_cast<size_t>(size) + 8) {
    scratch.candidateValues.resize(static_cast<size_t>(size) + 8);
    scratch.candidateIds.resize(static_cast<size_t>(size) + 8);
  }
  float* values = scratch.candidateValues.data();
  int32_t* ids = scratch.candidateIds.data();
  const __m256 thresholds = _mm256_set1_ps(threshold);
  size_t found = 0;
  for (at = 0; at + 8 <= blocks; at += 8) {
    unsigned mask = _mm256_cmp_ps_mask(_mm256_loadu_ps(maxima + at), thresholds, _CMP_GE_OQ);
    while (mask != 0) {
      found = takeBlockAvx512(row, at + __builtin_ctz(mask), thresholds, values, ids, found);
      mask &= mask - 1;
    }
  }
  for (; at < blocks; at++) {
    if (maxima[at] >= threshold) found = takeBlockAvx512(row, at, thresholds, values, ids, found);
  }
  for (int32_t id = blocks * maximaBlock; id < size; id++) {
    values[found] = row[id];
    ids[found] = id;
    found += row[id] >= threshold && row[id] != negativeInfinity ? 1 : 0;
  }
  std::vector<std::pair<float, int32_t>>& candidates = scratch.candidates;
  if (candidates.size() < found) candidates.resize(found);
  for (size_t index = 0; index < found; index++) candidates[index] = {values[index], ids[index]};
  writeBest(candidates, found, wanted, out);
}
#endif
}  // namespace

// The k largest entries in three steps, none of them a heap over the row: (1) each 32-entry block's
// maximum (given by summarizeRow, or computed here); (2) a threshold that at least k entries reach (below);
// (3) only the entries at or above it, in blocks whose maximum reaches it, become candidates, ordered by
// (logit desc, id asc). On a flat row (random weights: the whole 32k row within 1.2 of its maximum) the
// heap that skipped blocks below its running minimum still offered thousands of entries, branching on each;
// see docs/native.md for the figures. The candidates' order is a strict total order, so the result does not
// depend on which entries were looked at.
TESSERA_ROW_PASS void topKDense(const float* row, int32_t size, int32_t k, TopKCapture& out,
                                const std::vector<float>* givenBlockMaxima) {
  const int32_t wanted = std::max(k, 0);
  TopKScratch& scratch = topKScratch();
  const int32_t blocks = std::max(size, 0) / maximaBlock;
  const std::vector<float>* maximaSource = givenBlockMaxima;
  if (maximaSource == nullptr || static_cast<int32_t>(maximaSource->size()) != blocks) {
    std::vector<float>& computed = scratch.blockMaxima;
    computed.resize(static_cast<size_t>(blocks));
    for (int32_t at = 0; at < blocks; at++) {
      Float8 a;
      Float8 b;
      Float8 c;
      Float8 d;
      loadBlock(row + static_cast<size_t>(at) * maximaBlock, a, b, c, d);
      computed[static_cast<size_t>(at)] = maximumOfBlock(a, b, c, d);
    }
    maximaSource = &computed;
  }
  const std::vector<float>& maxima = *maximaSource;
#if TESSERA_AVX512_ROW_PASS
  if (avx512RowPass && wanted > 0 && wanted <= 8 * avx512TopKVectors && blocks >= (wanted + 7) / 8 * 8) {
    topKDenseAvx512(row, size, wanted, out, maxima, scratch);
    return;
  }
#endif
  // The threshold: the k-th largest block maximum. The k blocks with the largest maxima hold k distinct
  // entries at or above it, so every entry of the top k is at or above it too. Found in two steps, because a
  // selection over all ~1,000 block maxima branches on every comparison and, on a fresh row each token,
  // mispredicted its way to ~6 µs: first a lower bound without branches (deal the blocks into k interleaved
  // groups, take each group's largest block maximum and the smallest of those k: again k distinct entries
  // reach it), then the selection among the few dozen block maxima that reach that bound.
  float threshold = negativeInfinity;
  if (wanted > 0 && blocks >= wanted) {
    std::vector<float>& groups = scratch.groupMaxima;
    groups.assign(static_cast<size_t>(wanted), negativeInfinity);
    for (int32_t at = 0, group = 0; at < blocks; at++) {
      const float maximum = maxima[static_cast<size_t>(at)];
      float& best = groups[static_cast<size_t>(group)];
      best = maximum > best ? maximum : best;
      group = group + 1 == wanted ? 0 : group + 1;
    }
    float bound = groups[0];
    for (float maximum : groups) bound = maximum < bound ? maximum : bound;
    // The block maxima at or above the bound (at least k of them), written without a branch per block.
    std::vector<float>& reaching = scratch.reachingMaxima;
    if (reaching.size() < static_cast<size_t>(blocks)) reaching.resize(static_cast<size_t>(blocks));
    size_t count = 0;
    for (int32_t at = 0; at < blocks; at++) {
      const float maximum = maxima[static_cast<size_t>(at)];
      reaching[count] = maximum;
      count += maximum >= bound ? 1 : 0;
    }
    std::nth_element(reaching.begin(), reaching.begin() + (wanted - 1), reaching.begin() + static_cast<std::ptrdiff_t>(count),
                     std::greater<float>());
    threshold = reaching[static_cast<size_t>(wanted - 1)];
  }
  // Candidates are written without a branch per entry: each entry in a block that reaches the threshold is
  // stored, and the count advances only when the entry itself reaches it (-inf never does: a removed token is
  // not among the best, and the output pads with -1 / -inf instead when fewer than k entries are finite). A
  // branch per entry, taken at random a few dozen times a row, cost more than the stores.
  std::vector<std::pair<float, int32_t>>& candidates = scratch.candidates;
  size_t count = 0;
  if (wanted > 0) {
    size_t reaching = 0;
    for (int32_t at = 0; at < blocks; at++) reaching += maxima[static_cast<size_t>(at)] >= threshold ? 1 : 0;
    const int32_t tail = blocks * maximaBlock;
    const size_t room = reaching * maximaBlock + static_cast<size_t>(size - tail);
    if (candidates.size() < room) candidates.resize(room);
    std::pair<float, int32_t>* slots = candidates.data();
    const auto consider = [slots, &count, threshold](float value, int32_t id) {
      slots[count] = {value, id};
      count += value >= threshold && value != negativeInfinity ? 1 : 0;
    };
    for (int32_t at = 0; at < blocks; at++) {
      if (!(maxima[static_cast<size_t>(at)] >= threshold)) continue;
      const int32_t first = at * maximaBlock;
      for (int32_t id = first; id < first + maximaBlock; id++) consider(row[id], id);
    }
    for (int32_t id = tail; id < size; id++) consider(row[id], id);
  }
  writeBest(candidates, count, wanted, out);
}

void topKCandidates(const llama_token_data_array& candidates, int32_t k, TopKCapture& out) {
  TopKHeap heap(k);
  constexpr size_t block = 16;
  size_t index = 0;
  for (; index + block <= candidates.size; index += block) {
    const llama_token_data* data = candidates.data + index;
    if (heap.full()) {
      float blockMaximum = data[0].logit;
      for (size_t offset = 1; offset < block; offset++) blockMaximum = std::max(blockMaximum, data[offset].logit);
      if (blockMaximum <= heap.threshold()) continue;
    }
    for (size_t offset = 0; offset < block; offset++) heap.offer(data[offset].logit, data[offset].id);
  }
  for (; index < candidates.size; index++) heap.offer(candidates.data[index].logit, candidates.data[index].id);
  heap.write(out);
}

bool allFinite(const float* row, int32_t size) {
  // x - x is 0 for finite x and NaN for NaN or +-inf; NaN survives the sum.
  Float4 accumulated = {0, 0, 0, 0};
  int32_t index = 0;
  for (; index + 4 <= size; index += 4) {
    const Float4 values = load4(row + index);
    accumulated += values - values;
  }
  float total = accumulated[0] + accumulated[1] + accumulated[2] + accumulated[3];
  for (; index < size; index++) total += row[index] - row[index];
  return total == 0.0f;
}

// 32-entry blocks of four eight-lane loads (AVX2 in the x86-64-v3 clone; two SSE halves each in the default
// one): the pass runs on every generated token, so its cost shows in decode speed on small models.
// - Finiteness: FiniteCheck, as in summarizeRow.
// - Maximum and first arg-max: each lane keeps the largest of its block's four entries it has seen (a
//   max tree, so no per-entry index) and the first block where that value appeared (strictly greater
//   replaces), in two sets (even and odd blocks) so that the compare-and-select chains overlap. The first
//   entry equal to the maximum lies in the lowest block any lane recorded for it; only that block is then
//   searched. The 16-entry form that kept an index per entry ran at ~6 µs on a 32k row, this at ~2.
TESSERA_ROW_PASS RowScan scanRow(const float* row, int32_t size) {
  const int32_t blocks = std::max(size, 0) / maximaBlock;
  Float8 lowest;
  for (int lane = 0; lane < 8; lane++) lowest[lane] = negativeInfinity;
  FiniteCheck check;
  Float8 bestEven = lowest;
  Float8 bestOdd = lowest;
  Int8 blockEven = {};
  Int8 blockOdd = {};
  Int8 evenAt = {};
  Int8 oddAt = evenAt + 1;
  // One block into a set: strictly greater replaces, so each lane keeps the first block where its maximum
  // appeared.
  const auto absorb = [&](int32_t block, Float8& best, Int8& bestBlock, const Int8& blockIndex) {
    Float8 lanes;
    checkedLaneMaxima(row + static_cast<size_t>(block) * maximaBlock, check, lanes);
    const Int8 greater = lanes > best;
    best = greater ? lanes : best;
    bestBlock = greater ? blockIndex : bestBlock;
  };
  int32_t at = 0;
  for (; at + 2 <= blocks; at += 2) {
    absorb(at, bestEven, blockEven, evenAt);
    absorb(at + 1, bestOdd, blockOdd, oddAt);
    evenAt += 2;
    oddAt += 2;
  }
  if (at < blocks) absorb(at, bestEven, blockEven, evenAt);  // an odd number of blocks: the last joins the even set
  float total = check.total();
  float maximum = negativeInfinity;
  for (int lane = 0; lane < 8; lane++) {
    maximum = bestEven[lane] > maximum ? bestEven[lane] : maximum;
    maximum = bestOdd[lane] > maximum ? bestOdd[lane] : maximum;
  }
  const int32_t tail = blocks * maximaBlock;
  int32_t tailBest = -1;
  for (int32_t index = tail; index < size; index++) {
    const float value = row[index];
    total += value * 0.0f;
    if (value > maximum) {
      maximum = value;
      tailBest = index;
    }
  }
  RowScan scan{total == 0.0f, maximum, 0};
  if (!scan.finite) return scan;
  if (tailBest >= 0) {
    scan.argmax = tailBest;
    return scan;
  }
  int32_t firstBlock = blocks;
  for (int lane = 0; lane < 8; lane++) {
    if (bestEven[lane] == maximum && blockEven[lane] < firstBlock) firstBlock = blockEven[lane];
    if (bestOdd[lane] == maximum && blockOdd[lane] < firstBlock) firstBlock = blockOdd[lane];
  }
  for (int32_t index = firstBlock * maximaBlock; index < size; index++) {
    if (row[index] == maximum) {
      scan.argmax = index;
      break;
    }
  }
  return scan;
}

int32_t argMaxDense(const float* row, int32_t size) {
  const float maximum = maximumOf(row, size);
  for (int32_t index = 0; index < size; index++) {
    if (row[index] == maximum) return index;
  }
  return 0;
}

void divideDense(const float* row, int32_t size, float temperature, float* out) {
  for (int32_t index = 0; index < size; index++) out[index] = row[index] / temperature;
}

int32_t drawFromDense(const float* logits, int32_t size, float logSumExp, double uniform) {
  // Walks the cumulative distribution four tokens at a time; only the crossing group is walked singly.
  double cumulative = 0;
  int32_t index = 0;
  int32_t lastPossible = -1;
  for (; index + 4 <= size; index += 4) {
    const Float4 probabilities = exponentOfNonPositive(load4(logits + index) - logSumExp);
    const double group = static_cast<double>(probabilities[0]) + probabilities[1] + probabilities[2] + probabilities[3];
    if (cumulative + group > uniform) {
      for (int lane = 0; lane < 4; lane++) {
        cumulative += probabilities[lane];
        if (logits[index + lane] > negativeInfinity) lastPossible = index + lane;
        if (cumulative > uniform) return index + lane;
      }
    }
    cumulative += group;
    if (group > 0) lastPossible = index + 3;
  }
  for (; index < size; index++) {
    cumulative += exponentOfNonPositive(logits[index] - logSumExp);
    if (logits[index] > negativeInfinity) lastPossible = index;
    if (cumulative > uniform) return index;
  }
  // The probabilities summed to a hair under the draw (rounding): take the last possible token.
  return lastPossible >= 0 ? lastPossible : argMaxDense(logits, size);
}

void scatterCandidates(const llama_token_data_array& candidates, float* out, int32_t vocabSize) {
  std::fill(out, out + vocabSize, negativeInfinity);
  for (size_t i = 0; i < candidates.size; i++) {
    const int32_t id = candidates.data[i].id;
    if (id >= 0 && id < vocabSize) out[id] = candidates.data[i].logit;
  }
}
}  // namespace tessera

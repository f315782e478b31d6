// Limits of the bundled llama.cpp (node-llama-cpp 3.21.1, tag v0.4.0) that our option checks enforce,
// each with the place in llama.cpp it comes from. docs/native-assertions.md lists every assertion these
// guard against.

/** LLAMA_MAX_SEQ (src/llama-cparams.h:8): more sequences make llama_init_from_model fail. */
export const maximumSequences = 256;

/** GGML_MAX_N_THREADS (ggml/include/ggml.h:225): ggml's per-thread CPU masks have this many slots. */
export const maximumThreads = 512;

/** n_ubatch: the addon sets min(batchSize, 512) (native/src/addon-context.cpp). */
export const maximumMicroBatch = 512;

/**
 * Cells of the whole context (contextSize × sequences). llama.cpp keeps n_ctx in a uint32 and pads it
 * up to a multiple of 256 (llama-context.cpp:289), and positions are int32: above this the product
 * wraps (2^24 × 256 became 0, which llama.cpp reads as "the training context").
 */
export const maximumContextCells = 2 ** 31 - 256;

/**
 * Temperatures in (0, this) decode greedily. Logits are float32 and are divided by the temperature:
 * below 1e-3 a logit of 3.4e35 already overflows to Infinity, and 1e-40 (a float32 subnormal) turned
 * every ordinary logit into ±Infinity and the probabilities into NaN. The output of such a temperature is
 * the arg-max anyway: a gap of 0.01 between the top two logits is already a ratio of e^10 at 1e-3.
 */
export const minimumTemperature = 1e-3;

/** The largest finite float32: option values travel to llama.cpp as float32, larger ones become Infinity. */
export const float32Maximum = 3.4028234663852886e38;

/**
 * Penalties divide or multiply logits (llama-sampler.cpp:2970-2976); outside these bounds a float32
 * logit overflows to Infinity and the probabilities become NaN.
 */
export const minimumRepeatPenalty = 1e-6;
export const maximumRepeatPenalty = 1e6;
export const maximumAbsolutePenalty = 1e6;

/**
 * llama.cpp parses grammars and expands their rules by recursion, on the JavaScript thread and the
 * decode thread. Measured on the baseline addon: 30,000 nested groups or 100,000 chained rules overflow
 * the stack (SIGSEGV); 10,000 nested groups and 30,000 chained rules work. These limits keep far below.
 */
export const maximumGrammarBytes = 256 * 1024;
export const maximumGrammarNesting = 1000;

/**
 * Memory for full-vocabulary captures: the addon preallocates queueCapacity rows of vocabSize floats per
 * captured kind, so queueCapacity 65,536 with a 150k vocabulary asked for 39 GiB per kind.
 */
export const maximumCaptureBytes = 1024 ** 3;

/** seed 4294967295 is LLAMA_DEFAULT_SEED (include/llama.h:37), which llama.cpp replaces with a random seed. */
export const maximumSeed = 2 ** 32 - 2;

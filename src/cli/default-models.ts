// The models the CLI uses when --model is not given. The trained presets are committed files (no
// generation on first use), so a fresh clone's first `tessera run` prints words, the inspector shows
// real distributions, and the strategy benchmark measures a model that can get its tasks right.
// Speed benchmarks keep the random-weight `tiny` preset: llama.cpp's speed does not depend on weights.

/** run, chat, inspect and serve. */
export const defaultCliModel = "tiny-text";

/** bench strategies: a model trained on a checkable task, with its tasks in the model's own format. */
export const defaultStrategiesModel = "tiny-arith";

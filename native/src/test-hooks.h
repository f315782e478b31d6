#pragma once
#include <cstdint>

#include <napi.h>

namespace tessera::testhooks {

// Points where the test build (scripts/build-native.mjs --test-hooks) can widen a race window or
// inject a fault, so that each race and each fault path has a test that fails every time before its
// fix instead of 1 run in 5. The release build compiles every hook to nothing.
enum class Point : int {
  takeBatchGap,             // µs to sleep between takeBatch's two locked sections (lost wake-up)
  createContextBeforeInit,  // µs to sleep in the context worker before llama_init_from_model (use-after-free)
  throwInSample,            // throw from the decode thread at the Nth sample (1 = next): 1 runtime_error, 2 bad_alloc
  throwInSampleKind,
  throwInDecode,            // throw from llama_decode's call site at the Nth decode (1 = next)
  afterStep,                // µs to sleep after a decode step, before its notifications are sent
  throwInTakeBatch,         // throw std::bad_alloc from the Nth pull that takes events (1 = next), after its rows moved
  count,
};

#ifdef TESSERA_TEST_HOOKS
constexpr bool enabled = true;
void pause(Point point);
// Counts down the hook; true when it reaches zero (then the hook is off again).
bool fire(Point point);
int64_t value(Point point);
// { set(name, value), names() } on the addon's exports.
Napi::Object exports(Napi::Env env);
#else
constexpr bool enabled = false;
inline void pause(Point) {}
inline bool fire(Point) { return false; }
inline int64_t value(Point) { return 0; }
#endif
}  // namespace tessera::testhooks

#pragma once
#include <napi.h>

namespace tessera {

// Whoever waits on the JavaScript thread for a job's next events: the AddonDecodeJob handle.
// The decode thread's notification and context disposal settle its pull through this interface
// instead of casting a void* back to the handle's class.
class PullWaiter {
 public:
  // JavaScript thread: settles a waiting pull if events or the end arrived.
  virtual void resolvePending(Napi::Env env) = 0;

 protected:
  ~PullWaiter() = default;
};
}  // namespace tessera

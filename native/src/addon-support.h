#pragma once
#include <napi.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "huge-pages.h"

namespace tessera {

class DecodeEngine;

// Per-environment data: the class constructors. Its address also names the environment in the
// EngineRegistry, so that environment teardown can stop its decode threads.
struct AddonData {
  Napi::FunctionReference modelConstructor;
  Napi::FunctionReference contextConstructor;
  Napi::FunctionReference decodeJobConstructor;
};

AddonData& addonData(Napi::Env env);

// Errors carry a stable `code` that the TypeScript layer maps to its typed error classes.
[[noreturn]] void throwCoded(Napi::Env env, const char* code, const std::string& message);
Napi::Error codedError(Napi::Env env, const char* code, const std::string& message);
// The same from a C string, with no C++ heap allocation: for a message given while memory is short.
Napi::Error codedError(Napi::Env env, const char* code, const char* message);

// Settles an AsyncWorker's promise from OnOK/OnError. In a Worker thread that is being terminated,
// Node still completes queued work but JavaScript can no longer run: creating the result throws, and
// node-addon-api rethrows that from its C completion callback, which aborts the whole process. Here a
// failure becomes a rejection when one can still be made, and is dropped otherwise (nobody is left to
// read it); the worker's destructor frees what was not handed over.
template <typename Body>
void settleSafely(Napi::Promise::Deferred& deferred, Body&& body) {
  try {
    body();
  } catch (const Napi::Error& error) {
    try {
      deferred.Reject(error.Value());
    } catch (const std::exception&) {
    }
  } catch (const std::exception&) {
  }
}

// Keeps the event loop alive while at least one pull waits for the decode thread.
class LoopKeeper {
 public:
  explicit LoopKeeper(Napi::ThreadSafeFunction function) : function_(function) {}
  void retain(Napi::Env env) {
    if (released_) return;
    if (waiting_++ == 0) function_.Ref(env);
  }
  void release(Napi::Env env) {
    if (released_ || waiting_ == 0) return;
    if (--waiting_ == 0) function_.Unref(env);
  }
  void close() {
    if (released_) return;
    released_ = true;
    function_.Release();
  }
  // Node finalized the function (released, or closed at environment teardown): never touch it again,
  // since at teardown it is freed before the wrappers that hold it are destroyed.
  void markFinalized() { released_ = true; }
  bool isClosed() const { return released_; }
  Napi::ThreadSafeFunction& function() { return function_; }

 private:
  Napi::ThreadSafeFunction function_;
  size_t waiting_ = 0;
  bool released_ = false;
};

// Reads an optional property: undefined/missing gives the fallback.
double numberOption(const Napi::Object& options, const char* name, double fallback);
bool booleanOption(const Napi::Object& options, const char* name, bool fallback);
std::string stringOption(const Napi::Object& options, const char* name, const std::string& fallback);

// { requested, supported, advisedBytes, collapsedBytes, error }: what a load or context creation did about
// huge pages (huge-pages.h); error is the first madvise failure's name (e.g. "EINVAL") or null.
Napi::Object hugePageAdviceObject(Napi::Env env, const HugePageAdvice& advice);
}  // namespace tessera

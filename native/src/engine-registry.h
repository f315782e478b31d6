#pragma once
#include <memory>
#include <vector>

namespace tessera {

class DecodeEngine;
struct ModelHandle;
struct AddonData;

// Every live DecodeEngine of the process, with what it belongs to. Three things must find engines:
// - disposing a model disposes the contexts made from it (no decode thread may outlive its weights);
// - a Node environment's teardown (a Worker ending) stops that environment's engines;
// - process exit joins every decode thread before ggml's static state is destroyed under it.
// Before, each kept its own list of the same engines; this is the one list.
class EngineRegistry {
 public:
  // JavaScript thread, once the engine exists. The first call also installs the exit handler; it runs
  // after the ggml CPU backends were loaded (a context exists), so the handler runs before their static
  // destructors (atexit runs in reverse order).
  static void add(const std::shared_ptr<DecodeEngine>& engine, const ModelHandle* model, const AddonData* environment);
  // From the engine's destructor.
  static void remove(const DecodeEngine* engine);
  static std::vector<std::shared_ptr<DecodeEngine>> ofModel(const ModelHandle* model);
  static std::vector<std::shared_ptr<DecodeEngine>> ofEnvironment(const AddonData* environment);
};
}  // namespace tessera

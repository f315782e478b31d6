#include "engine-registry.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "decode-engine.h"

namespace tessera {
namespace {
struct Entry {
  // The raw pointer is for the exit handler: it must reach engines whose last shared_ptr is being
  // released right now (their destructor has not yet removed them), which a weak_ptr no longer locks.
  DecodeEngine* engine;
  std::weak_ptr<DecodeEngine> handle;
  const ModelHandle* model;
  const AddonData* environment;
};

std::mutex& registryMutex() {
  static auto* mutex = new std::mutex();  // never destroyed: the exit handler may run after static destructors
  return *mutex;
}

std::vector<Entry>& entries() {
  static auto* list = new std::vector<Entry>();
  return *list;
}

// process.exit() runs C++ exit handlers while decode threads may be inside llama_decode; ggml's static
// state is then destroyed under them (SIGSEGV). This stops and joins every decode thread first.
void stopEveryEngineAtExit() {
  std::lock_guard<std::mutex> lock(registryMutex());
  for (const Entry& entry : entries()) entry.engine->stopThread();
}

template <typename Matches>
std::vector<std::shared_ptr<DecodeEngine>> select(Matches matches) {
  std::vector<std::shared_ptr<DecodeEngine>> found;
  std::lock_guard<std::mutex> lock(registryMutex());
  for (const Entry& entry : entries()) {
    if (!matches(entry)) continue;
    if (auto engine = entry.handle.lock()) found.push_back(std::move(engine));
  }
  return found;
}
}  // namespace

void EngineRegistry::add(const std::shared_ptr<DecodeEngine>& engine, const ModelHandle* model,
                         const AddonData* environment) {
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(stopEveryEngineAtExit); });
  std::lock_guard<std::mutex> lock(registryMutex());
  entries().push_back({engine.get(), engine, model, environment});
}

void EngineRegistry::remove(const DecodeEngine* engine) {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto& list = entries();
  list.erase(std::remove_if(list.begin(), list.end(), [engine](const Entry& entry) { return entry.engine == engine; }),
             list.end());
}

std::vector<std::shared_ptr<DecodeEngine>> EngineRegistry::ofModel(const ModelHandle* model) {
  return select([model](const Entry& entry) { return entry.model == model; });
}

std::vector<std::shared_ptr<DecodeEngine>> EngineRegistry::ofEnvironment(const AddonData* environment) {
  return select([environment](const Entry& entry) { return entry.environment == environment; });
}
}  // namespace tessera

#include "test-hooks.h"

#ifdef TESSERA_TEST_HOOKS
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "addon-support.h"

namespace tessera::testhooks {
namespace {
std::atomic<int64_t> values[static_cast<int>(Point::count)];

const char* const names[] = {"takeBatchGap", "createContextBeforeInit", "throwInSample", "throwInSampleKind",
                             "throwInDecode", "afterStep", "throwInTakeBatch"};
static_assert(sizeof(names) / sizeof(names[0]) == static_cast<size_t>(Point::count), "a name per hook point");
}  // namespace

void pause(Point point) {
  const int64_t microseconds = values[static_cast<int>(point)].load();
  if (microseconds > 0) std::this_thread::sleep_for(std::chrono::microseconds(microseconds));
}

bool fire(Point point) {
  auto& counter = values[static_cast<int>(point)];
  int64_t current = counter.load();
  while (current > 0) {
    if (counter.compare_exchange_weak(current, current - 1)) return current == 1;
  }
  return false;
}

int64_t value(Point point) { return values[static_cast<int>(point)].load(); }

Napi::Object exports(Napi::Env env) {
  Napi::Object hooks = Napi::Object::New(env);
  hooks.Set("set", Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
              const std::string name = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
              for (int index = 0; index < static_cast<int>(Point::count); index++) {
                if (name == names[index]) {
                  values[index].store(info[1].IsNumber() ? info[1].As<Napi::Number>().Int64Value() : 0);
                  return info.Env().Undefined();
                }
              }
              throwCoded(info.Env(), "ERR_INVALID_ARGUMENT", "no test hook named '" + name + "'");
            }));
  // What a hook holds now: 0 once a countdown fired, so a test can tell that its fault was injected.
  hooks.Set("get", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
              const std::string name = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
              for (int index = 0; index < static_cast<int>(Point::count); index++) {
                if (name == names[index]) return Napi::Number::New(info.Env(), static_cast<double>(values[index].load()));
              }
              throwCoded(info.Env(), "ERR_INVALID_ARGUMENT", "no test hook named '" + name + "'");
            }));
  Napi::Array list = Napi::Array::New(env);
  for (int index = 0; index < static_cast<int>(Point::count); index++) list.Set(index, names[index]);
  hooks.Set("names", list);
  return hooks;
}
}  // namespace tessera::testhooks
#endif

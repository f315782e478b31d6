// Registers the addon's classes and functions; the wrapped objects live in addon-<thing>.cpp.
#include <napi.h>

#include "addon-backends.h"
#include "addon-context.h"
#include "addon-decode-job.h"
#include "addon-model.h"
#include "addon-support.h"
#include "engine-registry.h"
#include "addon-train.h"
#include "test-hooks.h"

namespace tessera {
namespace {
void stopEngines(AddonData* data) {
  // Decode threads must end before the process tears down llama.cpp's globals.
  for (auto& engine : EngineRegistry::ofEnvironment(data)) engine->dispose();
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  env.SetInstanceData<AddonData>(data);
  env.AddCleanupHook([data] { stopEngines(data); });
  Napi::Function model = AddonModel::Define(env);
  data->modelConstructor = Napi::Persistent(model);
  data->contextConstructor = Napi::Persistent(AddonContext::Define(env));
  data->decodeJobConstructor = Napi::Persistent(AddonDecodeJob::Define(env));
  exports.Set("loadBackends", Napi::Function::New(env, LoadBackends, "loadBackends"));
  exports.Set("loadBackendLibrary", Napi::Function::New(env, LoadBackendLibrary, "loadBackendLibrary"));
  exports.Set("listDevices", Napi::Function::New(env, ListDevices, "listDevices"));
  exports.Set("setLogLevel", Napi::Function::New(env, SetLogLevel, "setLogLevel"));
  exports.Set("systemInfo", Napi::Function::New(env, SystemInfo, "systemInfo"));
  exports.Set("loadModel", model.Get("load"));
  exports.Set("trainModel", Napi::Function::New(env, TrainModel, "trainModel"));
  exports.Set("releaseRows", Napi::Function::New(env, ReleaseRows, "releaseRows"));
  exports.Set("addonVersion", Napi::Number::New(env, 1));
#ifdef TESSERA_TEST_HOOKS
  exports.Set("testHooks", testhooks::exports(env));
#endif
  return exports;
}
}  // namespace tessera

static Napi::Object InitTessera(Napi::Env env, Napi::Object exports) { return tessera::Init(env, exports); }
NODE_API_MODULE(tessera_addon, InitTessera)

#include "addon-backends.h"

#include <mutex>
#include <string>

#include "addon-logging.h"
#include "addon-support.h"
#include "ggml-backend.h"
#include "llama.h"

namespace tessera {
namespace {
std::mutex backendsMutex;
std::string loadedFolder;
}  // namespace

Napi::Value LoadBackends(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throwCoded(env, "ERR_INVALID_ARGUMENT", "loadBackends expects a folder path");
  const std::string folder = info[0].As<Napi::String>().Utf8Value();
  std::lock_guard<std::mutex> lock(backendsMutex);
  if (loadedFolder.empty()) {
    installLogCallback();
    llama_backend_init();
    // Nothing registers by itself with node-llama-cpp's dynamic-backend build, and the plain
    // ggml_backend_load_all() would search node's own folder.
    ggml_backend_load_all_from_path(folder.c_str());
    loadedFolder = folder;
  }
  if (ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU) == nullptr) {
    throwCoded(env, "ERR_NO_CPU_BACKEND",
               "no CPU backend could be loaded from " + loadedFolder +
                   " (expected libggml-cpu-*.so there); reinstall node-llama-cpp's prebuilt binaries");
  }
  return Napi::String::New(env, loadedFolder);
}

Napi::Value LoadBackendLibrary(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throwCoded(env, "ERR_INVALID_ARGUMENT", "loadBackendLibrary expects a file path");
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  std::lock_guard<std::mutex> lock(backendsMutex);
  ggml_backend_reg_t registration = ggml_backend_load(path.c_str());
  if (registration == nullptr) return env.Null();  // ggml_backend_load registers what it loads
  return Napi::String::New(env, ggml_backend_reg_name(registration));
}

Napi::Value ListDevices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array devices = Napi::Array::New(env);
  for (size_t index = 0; index < ggml_backend_dev_count(); index++) {
    ggml_backend_dev_t device = ggml_backend_dev_get(index);
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("name", ggml_backend_dev_name(device));
    entry.Set("description", ggml_backend_dev_description(device));
    const char* type = "cpu";
    switch (ggml_backend_dev_type(device)) {
      case GGML_BACKEND_DEVICE_TYPE_GPU: type = "gpu"; break;
      case GGML_BACKEND_DEVICE_TYPE_IGPU: type = "igpu"; break;
      case GGML_BACKEND_DEVICE_TYPE_ACCEL: type = "accelerator"; break;
      default: break;
    }
    entry.Set("type", type);
    size_t freeBytes = 0;
    size_t totalBytes = 0;
    ggml_backend_dev_memory(device, &freeBytes, &totalBytes);
    entry.Set("memoryFree", static_cast<double>(freeBytes));
    entry.Set("memoryTotal", static_cast<double>(totalBytes));
    devices.Set(static_cast<uint32_t>(index), entry);
  }
  return devices;
}

Napi::Value SetLogLevel(const Napi::CallbackInfo& info) {
  setLogLevel(info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 0);
  return info.Env().Undefined();
}

Napi::Value SystemInfo(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), llama_print_system_info());
}
}  // namespace tessera

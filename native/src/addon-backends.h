#pragma once
#include <napi.h>

namespace tessera {
// loadBackends(folder): registers the ggml backends (CPU variants) found in node-llama-cpp's library folder.
Napi::Value LoadBackends(const Napi::CallbackInfo& info);
// loadBackendLibrary(path): loads one extra backend (libggml-cuda.so, libggml-vulkan.so); its name or null.
Napi::Value LoadBackendLibrary(const Napi::CallbackInfo& info);
Napi::Value ListDevices(const Napi::CallbackInfo& info);
Napi::Value SetLogLevel(const Napi::CallbackInfo& info);
Napi::Value SystemInfo(const Napi::CallbackInfo& info);
}  // namespace tessera

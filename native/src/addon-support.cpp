#include "addon-support.h"

namespace tessera {

AddonData& addonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

Napi::Error codedError(Napi::Env env, const char* code, const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  return error;
}

void throwCoded(Napi::Env env, const char* code, const std::string& message) { throw codedError(env, code, message); }

double numberOption(const Napi::Object& options, const char* name, double fallback) {
  Napi::Value value = options.Get(name);
  return value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : fallback;
}

bool booleanOption(const Napi::Object& options, const char* name, bool fallback) {
  Napi::Value value = options.Get(name);
  return value.IsBoolean() ? value.As<Napi::Boolean>().Value() : fallback;
}

std::string stringOption(const Napi::Object& options, const char* name, const std::string& fallback) {
  Napi::Value value = options.Get(name);
  return value.IsString() ? value.As<Napi::String>().Utf8Value() : fallback;
}
}  // namespace tessera

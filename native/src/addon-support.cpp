#include "addon-support.h"

#include <cstring>

namespace tessera {

AddonData& addonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

namespace {
Napi::Error withCode(Napi::Env env, Napi::Error error, const char* code) {
  error.Set("code", Napi::String::New(env, code));
  return error;
}
}  // namespace

Napi::Error codedError(Napi::Env env, const char* code, const char* message) {
  return withCode(env, Napi::Error::New(env, message), code);
}

// Its whole length, NULs included (c_str() would end the message at the first one).
Napi::Error codedError(Napi::Env env, const char* code, const std::string& message) {
  return withCode(env, Napi::Error::New(env, message), code);
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
Napi::Object hugePageAdviceObject(Napi::Env env, const HugePageAdvice& advice) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("requested", advice.requested);
  result.Set("supported", advice.supported);
  result.Set("advisedBytes", static_cast<double>(advice.advisedBytes));
  result.Set("collapsedBytes", static_cast<double>(advice.collapsedBytes));
  if (advice.firstError == 0) {
    result.Set("error", env.Null());
  } else {
#if defined(__GLIBC__)
    const char* name = strerrorname_np(advice.firstError);  // glibc 2.32+: "EINVAL", not its sentence
#else
    const char* name = nullptr;
#endif
    result.Set("error", name != nullptr ? std::string(name) : "errno " + std::to_string(advice.firstError));
  }
  return result;
}
}  // namespace tessera

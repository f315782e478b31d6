#pragma once
#include <string>

// llama.cpp reports parse errors (grammar, model file) only through its log callback, so we keep the
// last few error lines to put them into the JavaScript error. The callback is process-global: if
// node-llama-cpp is loaded in the same process and installs its own, these messages go there instead.
namespace tessera {
void installLogCallback();
void setLogLevel(int level);  // 0 none, 1 error, 2 warn, 3 info, 4 debug; default 0 (silent)
void clearRecentErrors();
std::string takeRecentErrors();
}  // namespace tessera

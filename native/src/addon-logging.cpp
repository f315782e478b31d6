#include "addon-logging.h"

#include <atomic>
#include <cstdio>
#include <deque>
#include <mutex>

#include "llama.h"

namespace tessera {
namespace {
std::atomic<int> logLevel{0};
std::mutex recentMutex;
std::deque<std::string> recentErrors;
std::string partialLine;

int levelRank(ggml_log_level level) {
  switch (level) {
    case GGML_LOG_LEVEL_ERROR: return 1;
    case GGML_LOG_LEVEL_WARN: return 2;
    case GGML_LOG_LEVEL_INFO: return 3;
    case GGML_LOG_LEVEL_DEBUG: return 4;
    default: return 3;  // CONT and NONE: treat like info
  }
}

void logCallback(ggml_log_level level, const char* text, void*) {
  if (text == nullptr) return;
  if (level == GGML_LOG_LEVEL_ERROR) {
    std::lock_guard<std::mutex> lock(recentMutex);
    std::string line(text);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) recentErrors.push_back(line);
    while (recentErrors.size() > 8) recentErrors.pop_front();
  }
  if (levelRank(level) <= logLevel.load(std::memory_order_relaxed)) {
    std::fputs(text, stderr);
  }
}
}  // namespace

void installLogCallback() { llama_log_set(logCallback, nullptr); }

void setLogLevel(int level) { logLevel.store(level, std::memory_order_relaxed); }

void clearRecentErrors() {
  std::lock_guard<std::mutex> lock(recentMutex);
  recentErrors.clear();
}

std::string takeRecentErrors() {
  std::lock_guard<std::mutex> lock(recentMutex);
  std::string joined;
  for (const auto& line : recentErrors) {
    if (!joined.empty()) joined += "; ";
    joined += line;
  }
  recentErrors.clear();
  return joined;
}
}  // namespace tessera

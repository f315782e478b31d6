#include "huge-pages.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tessera {
namespace {

#if defined(__linux__)
constexpr uintptr_t kHugePage = 2u << 20;

// Linux 6.1's value; older C headers lack the name while the running kernel may have the call.
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

// Whether any small page of the huge page at `page` is in memory.
bool anyResident(uintptr_t page) {
  static const size_t smallPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  unsigned char resident[kHugePage / 4096];  // enough for the smallest page size, 4 KiB
  const size_t count = kHugePage / std::max<size_t>(smallPage, 4096);
  if (mincore(reinterpret_cast<void*>(page), kHugePage, resident) != 0) return true;  // let madvise decide
  for (size_t index = 0; index < count; index++) {
    if ((resident[index] & 1) != 0) return true;
  }
  return false;
}

// The ranges of `after` not covered by any range of `before` (both as /proc/self/maps lists them:
// sorted, disjoint).
std::vector<MemoryRange> rangesAddedSince(const std::vector<MemoryRange>& before,
                                          const std::vector<MemoryRange>& after) {
  std::vector<MemoryRange> added;
  size_t next = 0;
  for (const MemoryRange& range : after) {
    uintptr_t from = range.start;
    while (next < before.size() && before[next].end <= from) next++;
    for (size_t index = next; index < before.size() && before[index].start < range.end; index++) {
      if (before[index].start > from) added.push_back({from, before[index].start});
      from = std::max(from, before[index].end);
      if (from >= range.end) break;
    }
    if (from < range.end) added.push_back({from, range.end});
  }
  return added;
}
#endif

}  // namespace

bool hugePagesAvailable() {
#if defined(__linux__)
  // The system's setting: "always [madvise] never" with the chosen one in brackets; no file, no THP.
  FILE* setting = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
  if (setting == nullptr) return false;
  char line[128] = {0};
  const bool read = std::fgets(line, sizeof(line), setting) != nullptr;
  std::fclose(setting);
  if (!read || std::strstr(line, "[never]") != nullptr) return false;
  // This process's: prctl(PR_SET_THP_DISABLE) (inherited by children) shows as "THP_enabled:\t0".
  FILE* status = std::fopen("/proc/self/status", "re");
  if (status == nullptr) return true;
  bool disabled = false;
  char statusLine[256];
  while (std::fgets(statusLine, sizeof(statusLine), status) != nullptr) {
    if (std::strncmp(statusLine, "THP_enabled:", 12) == 0) {
      disabled = std::strtol(statusLine + 12, nullptr, 10) == 0;
      break;
    }
  }
  std::fclose(status);
  return !disabled;
#else
  return false;
#endif
}

MappingSnapshot anonymousMappings() {
  MappingSnapshot snapshot;
#if defined(__linux__)
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return snapshot;
  // getline: a line of any length is one line (a long file path must not split into a second "line"
  // that parses as an anonymous range).
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, maps) != -1) {
    unsigned long start = 0, end = 0, inode = 0;
    char perms[8] = {0};
    int nameAt = 0;
    // start-end perms offset dev inode [name]
    if (std::sscanf(line, "%lx-%lx %7s %*x %*s %lu %n", &start, &end, perms, &inode, &nameAt) < 4) continue;
    const char* name = nameAt > 0 ? line + nameAt : "";
    // "[anon:...]" is anonymous memory someone named (prctl PR_SET_VMA_ANON_NAME; glibc 2.39+ names its
    // malloc mappings that way with glibc.mem.decorate_maps); "[heap]", "[stack]" and files are not ours.
    const bool named = *name != '\0' && *name != '\n' && std::strncmp(name, "[anon:", 6) != 0;
    if (inode != 0 || named || std::strcmp(perms, "rw-p") != 0) continue;
    snapshot.ranges.push_back({static_cast<uintptr_t>(start), static_cast<uintptr_t>(end)});
  }
  std::free(line);
  snapshot.ok = !std::ferror(maps);
  std::fclose(maps);
#endif
  return snapshot;
}

HugePageAdvice notAdvised() {
  HugePageAdvice advice;
  advice.supported = hugePagesAvailable();
  return advice;
}

HugePageAdvice adviseHugePages(const MappingSnapshot& before, uint64_t minimumBytes, bool collapse) {
  HugePageAdvice advice;
  advice.requested = true;
#if defined(__linux__)
  advice.supported = hugePagesAvailable();
  // Without both snapshots nothing can tell this call's memory from the rest of the process (V8's heap
  // included): then nothing is advised.
  if (!advice.supported || !before.ok) return advice;
  const MappingSnapshot after = anonymousMappings();
  if (!after.ok) return advice;
  for (const MemoryRange& range : rangesAddedSince(before.ranges, after.ranges)) {
    // Only whole huge pages inside the range: advising a partial one would take in a neighbour's memory.
    const uintptr_t start = (range.start + kHugePage - 1) & ~(kHugePage - 1);
    const uintptr_t end = range.end & ~(kHugePage - 1);
    if (end <= start || end - start < minimumBytes) continue;
    void* address = reinterpret_cast<void*>(start);
    const size_t length = end - start;
    // Another thread may unmap part of the range meanwhile (ENOMEM): the advice is dropped there, and
    // nothing else changes.
    if (madvise(address, length, MADV_HUGEPAGE) != 0) {
      if (advice.firstError == 0) advice.firstError = errno;
      continue;
    }
    advice.advisedBytes += length;
    if (!collapse) continue;
    // Collapsing now rather than waiting for khugepaged, which scans a few MiB every 10 s by default:
    // the memory was written during the call (the weights' repack), so it is all on small pages.
    // One huge page per call, so a page that cannot be collapsed (no free huge page: EAGAIN) costs
    // only itself, and collapsedBytes is exact. A page nothing has touched yet (a KV cache llama.cpp has
    // not written) is left alone: the kernel refuses to collapse it (EINVAL), and after MADV_HUGEPAGE its
    // first touch gets a huge page anyway.
    for (uintptr_t page = start; page < end; page += kHugePage) {
      if (!anyResident(page)) continue;
      if (madvise(reinterpret_cast<void*>(page), kHugePage, MADV_COLLAPSE) == 0) {
        advice.collapsedBytes += kHugePage;
      } else {
        if (advice.firstError == 0) advice.firstError = errno;
        // A populated page refused with EINVAL: this kernel has no MADV_COLLAPSE (before 6.1).
        if (errno == EINVAL) break;
      }
    }
  }
#else
  (void)before;
  (void)minimumBytes;
  (void)collapse;
#endif
  return advice;
}

}  // namespace tessera

#include "huge-pages.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tessera {
namespace {

constexpr uintptr_t kHugePage = 2u << 20;

#if defined(__linux__)
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

bool hugePagesSupported() {
#if defined(__linux__)
  return true;
#else
  return false;
#endif
}

std::vector<MemoryRange> anonymousMappings() {
  std::vector<MemoryRange> ranges;
#if defined(__linux__)
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return ranges;
  char line[512];
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long start = 0, end = 0, inode = 0;
    char perms[8] = {0};
    int nameAt = 0;
    // start-end perms offset dev inode [name]
    if (std::sscanf(line, "%lx-%lx %7s %*x %*s %lu %n", &start, &end, perms, &inode, &nameAt) < 4) {
      // A line longer than the buffer continues in the next read; its rest never parses as a range.
      continue;
    }
    const bool named = nameAt > 0 && line[nameAt] != '\0' && line[nameAt] != '\n';
    if (inode != 0 || named || std::strcmp(perms, "rw-p") != 0) continue;
    ranges.push_back({static_cast<uintptr_t>(start), static_cast<uintptr_t>(end)});
  }
  std::fclose(maps);
#endif
  return ranges;
}

HugePageAdvice adviseHugePages(const std::vector<MemoryRange>& before, uint64_t minimumBytes, bool collapse) {
  HugePageAdvice advice;
#if defined(__linux__)
  const std::vector<MemoryRange> after = anonymousMappings();
  if (after.empty()) return advice;
  advice.supported = true;
  for (const MemoryRange& range : rangesAddedSince(before, after)) {
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

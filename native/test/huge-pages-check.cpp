// Checks native/src/huge-pages.cpp in a process of its own (test/native/huge-pages-maps.test.ts compiles
// and runs it): what it reads from /proc/self/maps, which ranges it advises, and what it reports. Prints
// one "name ok" or "name FAIL: why" line per check.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "huge-pages.h"

using tessera::adviseHugePages;
using tessera::anonymousMappings;
using tessera::HugePageAdvice;
using tessera::MappingSnapshot;

namespace {

constexpr size_t kMiB = 1 << 20;
int failures = 0;

void check(const char* name, bool passed, const std::string& why) {
  if (passed) {
    std::printf("%s ok\n", name);
  } else {
    std::printf("%s FAIL: %s\n", name, why.c_str());
    failures++;
  }
}

bool contains(const MappingSnapshot& snapshot, uintptr_t start) {
  for (const auto& range : snapshot.ranges) {
    if (range.start <= start && start < range.end) return true;
  }
  return false;
}

void* anonymous(size_t bytes) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? nullptr : memory;
}

// Where the path column of a file mapping starts in /proc/self/maps for an address like `probe`'s.
size_t pathColumn(const char* folder) {
  const std::string path = std::string(folder) + "/probe";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 0;
  void* mapped = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%lx-", reinterpret_cast<unsigned long>(mapped));
  FILE* maps = std::fopen("/proc/self/maps", "r");
  char line[8192];
  size_t column = 0;
  while (maps != nullptr && std::fgets(line, sizeof(line), maps) != nullptr) {
    if (std::strncmp(line, prefix, std::strlen(prefix)) == 0) {
      const char* at = std::strstr(line, path.c_str());
      column = at == nullptr ? 0 : static_cast<size_t>(at - line);
    }
  }
  if (maps != nullptr) std::fclose(maps);
  munmap(mapped, 4096);
  return column;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: huge-pages-check <scratch folder>\n");
    return 2;
  }
  const char* folder = argv[1];
  const bool available = tessera::hugePagesAvailable();
  std::printf("available %d\n", available ? 1 : 0);

  // 1. A file whose path puts the text of an anonymous mapping line where a fixed-size line buffer
  //    would split it (the parser once read 512-byte pieces): it must stay one line, a named one.
  {
    const size_t column = pathColumn(folder);
    const char* fake = "7e0000000000-7e0000a00000 rw-p 0 0 0";
    std::string path = std::string(folder) + "/";
    for (size_t cut : {511u, 1023u, 4095u}) {
      std::string candidate = path;
      while (column + candidate.size() < cut) {
        const size_t room = std::min<size_t>(200, cut - column - candidate.size());
        candidate += room <= 1 ? std::string("/") : std::string(room - 1, 'a') + "/";
        if (room > 1) mkdir(candidate.c_str(), 0700);
      }
      const std::string file = candidate + fake;
      const int fd = open(file.c_str(), O_RDWR | O_CREAT, 0600);
      if (fd < 0 || ftruncate(fd, 4096) != 0) {
        check("long path", false, "could not create " + file);
        continue;
      }
      void* mapped = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
      close(fd);
      const MappingSnapshot snapshot = anonymousMappings();
      check("long path", snapshot.ok && !contains(snapshot, 0x7e0000000000ul),
            "a path cut at " + std::to_string(cut) + " read as an anonymous range");
      munmap(mapped, 4096);
    }
  }

  // 2. Memory mapped before the snapshot is never advised; memory mapped after it is, in whole 2 MiB pages.
  {
    void* old = anonymous(64 * kMiB);
    std::memset(old, 1, 64 * kMiB);
    const MappingSnapshot before = anonymousMappings();
    check("snapshot", before.ok && contains(before, reinterpret_cast<uintptr_t>(old)), "the old range is missing");
    const HugePageAdvice none = adviseHugePages(before, tessera::kHugePageMinimumBytes);
    check("nothing new", none.advisedBytes == 0 && none.collapsedBytes == 0,
          "advised " + std::to_string(none.advisedBytes) + " bytes with nothing mapped since the snapshot");

    void* fresh = anonymous(64 * kMiB);
    std::memset(fresh, 1, 40 * kMiB);  // 40 MiB written, 24 MiB never touched
    const HugePageAdvice advice = adviseHugePages(before, tessera::kHugePageMinimumBytes);
    if (available) {
      // 64 MiB not aligned to 2 MiB holds at least 31 whole huge pages; the kernel may merge the
      // mapping with a neighbour made meanwhile, never with `old` (advised only if new).
      check("new range advised", advice.advisedBytes >= 62 * kMiB && advice.advisedBytes <= 64 * kMiB,
            "advised " + std::to_string(advice.advisedBytes));
      check("written pages collapsed", advice.collapsedBytes >= 36 * kMiB && advice.collapsedBytes <= 42 * kMiB,
            "collapsed " + std::to_string(advice.collapsedBytes) + " of 40 MiB written (error " +
                std::to_string(advice.firstError) + ")");
    } else {
      check("unavailable: nothing advised", !advice.supported && advice.advisedBytes == 0,
            "advised " + std::to_string(advice.advisedBytes) + " where huge pages are unavailable");
    }
    munmap(old, 64 * kMiB);
    munmap(fresh, 64 * kMiB);
  }

  // 3. Without a "before" snapshot nothing can be told apart: nothing is advised.
  {
    const MappingSnapshot failed;  // ok == false, as when /proc/self/maps cannot be opened
    void* fresh = anonymous(32 * kMiB);
    std::memset(fresh, 1, 32 * kMiB);
    const HugePageAdvice advice = adviseHugePages(failed, tessera::kHugePageMinimumBytes);
    check("failed snapshot", advice.advisedBytes == 0, "advised " + std::to_string(advice.advisedBytes));
    munmap(fresh, 32 * kMiB);
  }

  std::printf("failures %d\n", failures);
  return failures == 0 ? 0 : 1;
}

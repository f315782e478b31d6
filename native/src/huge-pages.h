#pragma once

#include <cstdint>
#include <vector>

namespace tessera {

// Transparent huge pages for the memory llama.cpp allocates itself.
//
// Why: ggml's CPU buffers (the weights a quantized model repacks at load, the KV cache, the compute
// buffers) come from posix_memalign, i.e. anonymous 4 KiB pages unless the process asked for more. Where
// the kernel backs anonymous memory with huge pages only on request (transparent_hugepage=madvise, the
// usual default) and a TLB miss is expensive (a VM with shadow or nested paging), decode streams the
// weights through 4 KiB pages: on the 2-core AMD EPYC VM this project measures on, the 1B Q4_0 model
// decoded at 5-9 tokens/s that way and at 25 with the same libraries on 2 MiB pages
// (docs/native.md, "Huge pages"). The file-mapped weights of a model that is not repacked already get
// large folios from the page cache; this is for anonymous memory only.
//
// A load or context creation snapshots the process's anonymous mappings before the llama.cpp call and
// advises only the address ranges that appeared during it, so memory the rest of the process owns (V8's
// heap, other models) is left as it was, except for what another thread mapped during the same call,
// for which the advice is harmless: huge pages change how memory is backed, never its contents.

// One mapped address range [start, end).
struct MemoryRange {
  uintptr_t start = 0;
  uintptr_t end = 0;
};

// What adviseHugePages did, for LlamaModel.hugePages / LlamaContext.hugePages.
struct HugePageAdvice {
  // The hugePages option of the load (false: nothing was read or advised).
  bool requested = false;
  // Bytes asked to use huge pages from now on (MADV_HUGEPAGE), in 2 MiB-aligned ranges.
  uint64_t advisedBytes = 0;
  // Bytes on huge pages when the call returned, of those advised: collapsed (MADV_COLLAPSE, Linux 6.1+)
  // or faulted in as huge pages after the advice. The rest is not in memory yet (its first touch gets a
  // huge page), waits for khugepaged, or stays on small pages (no free huge page, an older kernel).
  uint64_t collapsedBytes = 0;
  // The first errno a madvise call gave (0: none): EINVAL for a page in memory that the kernel would not
  // collapse (no MADV_COLLAPSE before Linux 6.1), EAGAIN for one it could not collapse then (no free
  // huge page, or another thread was writing it), ENOMEM for a range unmapped meanwhile.
  int firstError = 0;
  // hugePagesAvailable() when the call was made (also when not requested: what asking would have done).
  bool supported = false;
};

// Whether asking would give this process huge pages: Linux, /sys/kernel/mm/transparent_hugepage/enabled
// present and not "never", and THP not disabled for the process (prctl PR_SET_THP_DISABLE).
bool hugePagesAvailable();

// The process's private, writable, anonymous mappings (Linux: /proc/self/maps); ok is false where they
// could not be read (not Linux, no /proc, no file descriptor left), and then nothing is advised.
struct MappingSnapshot {
  bool ok = false;
  std::vector<MemoryRange> ranges;
};
MappingSnapshot anonymousMappings();

// Advises the anonymous ranges mapped since `before` that hold at least `minimumBytes` of whole 2 MiB
// pages, and with `collapse` moves the pages already in memory onto huge pages (MADV_COLLAPSE: a copy,
// about 2 s per GiB on the VM of docs/native.md; pages already huge cost nothing). Runs on a worker
// thread. Advising before llama.cpp writes a buffer is what makes it cheap: the writes then fault in
// huge pages directly, with nothing to copy (the model load advises from its first progress callback,
// when the weights' buffers exist and are still empty).
//
// "Mapped since `before`" is everything: what another thread of the process mapped during the call
// (another load at the same time, the loader thread's malloc arena) is advised and counted too.
HugePageAdvice adviseHugePages(const MappingSnapshot& before, uint64_t minimumBytes, bool collapse = true);

// The report of a call that was not asked to advise (hugePages: false).
HugePageAdvice notAdvised();

// The smallest new range worth advising: smaller buffers gain little and would spend huge pages.
constexpr uint64_t kHugePageMinimumBytes = 8ull << 20;

}  // namespace tessera

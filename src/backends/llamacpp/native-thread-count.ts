import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

let cached: number | undefined;

/**
 * Physical cores (not hyper-threads): ggml spin-waits, so threads beyond the physical cores, or
 * beyond what the machine has free, slow decoding down by orders of magnitude (see design/native.md).
 */
export function physicalCoreCount(): number {
  if (cached !== undefined) return cached;
  cached = Math.max(1, Math.min(countLinuxPhysicalCores() ?? availableParallelism(), availableParallelism()));
  return cached;
}

function countLinuxPhysicalCores(): number | undefined {
  try {
    const cores = new Set<string>();
    let physicalId = "0";
    for (const line of readFileSync("/proc/cpuinfo", "utf8").split("\n")) {
      const [key, value] = line.split(":").map((part) => part.trim());
      if (key === "physical id") physicalId = value ?? "0";
      if (key === "core id") cores.add(`${physicalId}:${value}`);
    }
    return cores.size > 0 ? cores.size : undefined;
  } catch {
    return undefined;
  }
}

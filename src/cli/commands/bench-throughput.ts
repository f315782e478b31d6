import type { Command } from "commander";

export function registerThroughputBenchCommand(_bench: Command): void {}

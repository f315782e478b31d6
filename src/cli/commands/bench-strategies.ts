import type { Command } from "commander";

export function registerStrategiesBenchCommand(_bench: Command): void {}

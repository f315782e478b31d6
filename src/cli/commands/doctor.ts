// `tessera doctor`: what this machine offers tessera. The CPU variant and thread default, every GPU
// backend node-llama-cpp ships with whether it loads and why not, the drivers and runtime libraries
// seen, the devices with their free memory, and the model folder's disk space.
import type { Command } from "commander";
import { collectDoctorReport, type DoctorReport } from "../../backends/llamacpp/gpu/doctor-report.js";

const mebibyte = 1024 * 1024;
const gibibyte = 1024 * mebibyte;

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description(
      "show the CPU variant, GPU backends (and why one does not load), drivers, devices and disk space",
    )
    .option("--json", "print the report as one JSON object")
    .action((options: { json?: boolean }) => {
      const report = collectDoctorReport();
      process.stdout.write(
        options.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report),
      );
    });
}

function formatReport(report: DoctorReport): string {
  const lines: string[] = [];
  const { cpu, drivers, models } = report;
  lines.push("CPU");
  lines.push(`  ${cpu.model}`);
  lines.push(
    `  variant loaded: ${cpu.variant ?? "unknown"}${cpu.librariesFolder ? ` (from ${cpu.librariesFolder})` : ""}`,
  );
  lines.push(`  threads: default ${cpu.defaultThreads} (physical cores), ${cpu.logicalCores} logical`);
  lines.push(`  features: ${cpu.features}`);
  lines.push("");
  lines.push("GPU backends (tried in this order)");
  for (const backend of report.gpuBackends) {
    lines.push(`  ${backend.backend}: ${backend.loads ? "loads" : `does not load: ${backend.reason}`}`);
    lines.push(`    ${backend.path}`);
    if (backend.detail !== null) {
      for (const line of backend.detail.split("\n").slice(1, -1)) lines.push(`    ${line.trim()}`);
    }
  }
  lines.push(
    `  gpuLayers would use: ${report.gpuBackend ?? 'none (the CPU runs every layer; gpuLayers "auto" resolves to 0)'}`,
  );
  lines.push("");
  lines.push("Drivers and libraries");
  lines.push(
    `  NVIDIA kernel driver: ${drivers.nvidiaKernelDriver ?? "none (/proc/driver/nvidia/version absent)"}`,
  );
  if (!drivers.nvidiaSmi.found) lines.push("  nvidia-smi: not found");
  for (const line of drivers.nvidiaSmi.lines) lines.push(`  nvidia-smi: ${line}`);
  for (const [name, path] of Object.entries(drivers.libraries))
    lines.push(`  ${name}: ${path ?? "not found"}`);
  lines.push(
    `  Vulkan drivers (ICDs): ${drivers.vulkanDrivers.length > 0 ? drivers.vulkanDrivers.join(", ") : "none"}`,
  );
  lines.push("");
  lines.push("Devices");
  for (const device of report.devices) {
    const memory =
      device.memoryTotal > 0
        ? `${Math.round(device.memoryFree / mebibyte)} MiB free of ${Math.round(device.memoryTotal / mebibyte)} MiB`
        : "memory not reported";
    lines.push(`  ${device.name} (${device.type}): ${device.description}; ${memory}`);
  }
  lines.push("");
  lines.push("Models");
  lines.push(`  folder: ${models.folder}`);
  lines.push(`  ${models.ggufFiles} GGUF file(s), ${(models.ggufBytes / gibibyte).toFixed(2)} GiB`);
  lines.push(
    models.freeBytes === null || models.totalBytes === null
      ? "  disk: unknown"
      : `  disk: ${(models.freeBytes / gibibyte).toFixed(1)} GiB free of ${(models.totalBytes / gibibyte).toFixed(1)} GiB`,
  );
  return `${lines.join("\n")}\n`;
}

// `tessera doctor` run as a user runs it (node dist/cli/main.js), on this CPU-only machine.
import { describe, expect, it } from "vitest";
import type { DoctorReport } from "../../src/backends/llamacpp/gpu/doctor-report.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import { physicalCoreCount } from "../../src/backends/llamacpp/native-thread-count.js";
import { modelsDirectory } from "../../src/gguf/default-model.js";
import { runCli } from "../cli/support/run-cli.js";

const cpuOnly = !loadNativeAddon()
  .listDevices()
  .some((device) => device.type !== "cpu");

describe.runIf(cpuOnly)("tessera doctor on a CPU-only machine", () => {
  it("prints the CPU variant, the thread default, and why each GPU backend does not load", async () => {
    const result = await runCli(["doctor"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const text = result.stdout;
    expect(text).toMatch(/variant loaded: libggml-cpu-[\w.-]+\.so \(from .+\)/);
    expect(text).toContain(`threads: default ${physicalCoreCount()} (physical cores)`);
    for (const backend of ["CUDA 13", "CUDA 12", "Vulkan"]) {
      expect(text).toMatch(new RegExp(`  ${backend}: does not load: .+`));
    }
    expect(text).toContain(
      'gpuLayers would use: none (the CPU runs every layer; gpuLayers "auto" resolves to 0)',
    );
    expect(text).toMatch(/NVIDIA kernel driver: /);
    expect(text).toMatch(/libcuda\.so\.1: /);
    expect(text).toMatch(/CPU \(cpu\): .+; \d+ MiB free of \d+ MiB/);
    expect(text).toContain(`folder: ${modelsDirectory()}`);
    expect(text).toMatch(/disk: [\d.]+ GiB free of [\d.]+ GiB/);
  });

  it("prints the same facts as JSON with --json", async () => {
    const result = await runCli(["doctor", "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.cpu.defaultThreads).toBe(physicalCoreCount());
    expect(report.cpu.variant).toMatch(/^libggml-cpu-.+\.so$/);
    expect(report.gpuBackends.map((backend) => backend.backend)).toEqual(["CUDA 13", "CUDA 12", "Vulkan"]);
    for (const backend of report.gpuBackends) {
      expect(backend.loads).toBe(false);
      expect(backend.reason).toMatch(/\S/);
      // A missing library is named, with what provides it.
      for (const library of backend.missingLibraries) expect(backend.detail).toContain(`${library}: from `);
    }
    expect(report.gpuBackend).toBeNull();
    expect(Object.keys(report.drivers.libraries)).toContain("libcuda.so.1");
    expect(report.devices.filter((device) => device.type === "cpu").length).toBeGreaterThan(0);
    expect(report.models.folder).toBe(modelsDirectory());
    expect(report.models.freeBytes).toBeGreaterThan(0);
  });
});

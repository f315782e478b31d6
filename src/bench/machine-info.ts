import { cpus, totalmem } from "node:os";

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  platform: string;
  node: string;
}

/** What the numbers were measured on; every results file carries it. */
export function machineInfo(): MachineInfo {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? "unknown",
    cores: processors.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: `${process.platform}-${process.arch}`,
    node: process.version,
  };
}

export function describeMachine(machine: MachineInfo): string {
  return `${machine.cores} × ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}`;
}

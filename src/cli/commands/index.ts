import type { Command } from "commander";
import { registerBenchCommand } from "./bench.js";
import { registerChatCommand } from "./chat.js";
import { registerDoctorCommand } from "./doctor.js";
import { registerInspectCommand } from "./inspect.js";
import { registerModelsCommand } from "./models.js";
import { registerReliabilityCommand } from "./reliability.js";
import { registerRunCommand } from "./run.js";
import { registerServeCommand } from "./serve.js";

// One line per subcommand file; each exports `register<Name>Command(program)`.
export function registerCommands(program: Command): void {
  registerModelsCommand(program);
  registerRunCommand(program);
  registerInspectCommand(program);
  registerChatCommand(program);
  registerBenchCommand(program);
  registerServeCommand(program);
  registerReliabilityCommand(program);
  registerDoctorCommand(program);
}

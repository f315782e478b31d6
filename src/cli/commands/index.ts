import type { Command } from "commander";
import { registerModelsCommand } from "./models.js";

// One line per subcommand file; each exports `register<Name>Command(program)`.
export function registerCommands(program: Command): void {
  registerModelsCommand(program);
}

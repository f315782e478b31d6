import type { Command } from "commander";

// One line per subcommand file; each exports `register<Name>Command(program)`.
export function registerCommands(_program: Command): void {}

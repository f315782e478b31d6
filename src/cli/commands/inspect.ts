// `tessera inspect`: generate once with raw and processed logits captured, and write the self-contained
// inspector page (tokens coloured by probability, raw/processed switch, alternatives on click).
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { buildInspectorReport } from "../../inspector/inspector-report.js";
import { renderInspectorPage } from "../../inspector/render-inspector-page.js";
import { describeSamplerChain } from "../../inspector/sampler-chain.js";
import { Message } from "../../messages/components/message.js";
import { SimpleContext } from "../../stdlib/contexts/simple-context.js";
import { OutputWriteError } from "../errors/output-write-error.js";
import { addModelFlags, describeSampler, type ModelFlags, modelOptionsFromFlags } from "../model-flags.js";
import { integerArgument } from "../number-arguments.js";
import { openBackend } from "../open-model.js";
import { prepareOutputFolder, reportCreatedFolders } from "../output-folder.js";
import { delayedProgressBar } from "../progress-bar.js";
import { readPrompt } from "../read-prompt.js";
import { serveInspector } from "./inspect-serve.js";

interface InspectFlags extends ModelFlags {
  out?: string;
  serve?: boolean;
  port: number;
  sequences: number;
  alternatives: number;
  full?: boolean;
  json?: boolean;
}

async function inspect(promptWords: string[], flags: InspectFlags, command: Command): Promise<void> {
  if (flags.serve) {
    if (flags.out !== undefined || promptWords.length > 0) {
      command.error("error: --serve takes no --out and no prompt (type prompts in the page)", {
        exitCode: 1,
      });
    }
    return serveInspector(flags);
  }
  if (flags.out === undefined) {
    command.error("error: required option '-o, --out <file>' not specified", {
      exitCode: 1,
    });
  }
  const prompt = await readPrompt(promptWords);
  const path = resolve(flags.out);
  // A bad path (a folder, a file in the way, no permission) fails before anything is generated.
  reportCreatedFolders(await prepareOutputFolder(path, "--out"), "--out");
  const backend = await openBackend({ ...flags, quiet: flags.json === true });
  try {
    // Full vectors give exact entropy and ranks; top-k keeps the page small (the default).
    const capture = flags.full ? ("full" as const) : flags.alternatives;
    const { thunk } = await backend.generateFromContext(new Message("user", prompt), new SimpleContext(), {
      modelOptions: { ...modelOptionsFromFlags(flags), logits: capture, rawLogits: capture },
    });
    const bar = delayedProgressBar(" generating {bar} {value}/{total} tokens", {
      enabled: flags.json !== true,
    });
    const maxTokens = flags.maxTokens ?? 64;
    try {
      for await (const _delta of thunk) {
        bar.update(thunk.generation.logits?.steps.length ?? 0, maxTokens);
      }
    } finally {
      bar.stop();
    }
    const text = await thunk.avalue();
    const report = buildInspectorReport({
      modelId: backend.modelId,
      prompt,
      processed: thunk.generation.logits,
      raw: thunk.generation.rawLogits,
      settings: { ...describeSampler(flags), finish: thunk.generation.finishReasons?.[0] ?? "?" },
      samplerChain: describeSamplerChain(modelOptionsFromFlags(flags)),
      tokenText: (token) => new TextDecoder().decode(backend.model.tokenToPiece(token, { special: true })),
    });
    await writeFile(path, renderInspectorPage(report)).catch((error: unknown) => {
      throw new OutputWriteError(path, error);
    });
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify({ path, tokens: report.tokens.length, model: report.modelId, text })}\n`,
      );
    } else {
      process.stdout.write(
        `${path}\n${report.tokens.length} tokens from ${report.modelId}; open the page in a browser (it works offline).\n`,
      );
    }
  } finally {
    await backend.dispose();
  }
}

export function registerInspectCommand(program: Command): void {
  const command = program
    .command("inspect")
    .description(
      "generate once and write a self-contained HTML page of every token's raw and processed probabilities, " +
        "or (--serve) serve a live page on 127.0.0.1 that branches at any token",
    )
    .argument("[prompt...]", "the prompt (read from stdin when omitted)");
  addModelFlags(command, { maxTokens: 64 })
    .option("-o, --out <file>", "where to write the HTML page (required unless --serve)")
    // Commander's generated usage ("[options] [prompt...]") hides that -o (or --serve) must be given.
    .usage("-o <file> [options] [prompt...] | --serve [--port <n>] [options]")
    .option("--serve", "start the live inspector on 127.0.0.1 and print its URL (branch at any token)")
    .option("--port <n>", "port of --serve (0 = a free one)", integerArgument(0, 65535), 0)
    .option(
      "--sequences <n>",
      "branches of --serve that keep their KV cells at once (more give them back, least recently used first)",
      integerArgument(1, 64),
      4,
    )
    .option("-k, --alternatives <k>", "alternatives kept per token", integerArgument(1, 100), 10)
    .option("--full", "capture the whole vocabulary per token (exact entropy and ranks; larger page)")
    .option("--json", "print the result as one JSON line")
    .addHelpText(
      "after",
      `
Examples:
  $ tessera inspect "The capital of France is" --out report.html
  $ tessera inspect --model llama-3.2-1b:q4_0 -t 0.8 --top-k 40 -n 32 "Once upon a time" -o story.html
  $ tessera inspect --full -n 16 "2 + 2 =" -o exact.html
  $ tessera inspect --serve --port 8765`,
    )
    .action((promptWords: string[], flags: InspectFlags, command: Command) =>
      inspect(promptWords, flags, command),
    );
}

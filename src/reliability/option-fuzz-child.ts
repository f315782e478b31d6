// Child process of the option fuzzer (`node option-fuzz-child.js <run seed>`): loads the default model
// once, then runs each case it is sent (option-fuzz-case.ts) through the public API: loadLlamaModel
// with the case's options when it has some, createContext, and its generations, reading at most eight
// tokens of each. An abort in llama.cpp kills only this process; the parent counts it as a crash.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import type { LlamaContext, LlamaContextOptions } from "../backends/llamacpp/llama-context.js";
import {
  type LlamaModel,
  type LoadLlamaModelOptions,
  loadLlamaModel,
} from "../backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../backends/llamacpp/native-generate-options.js";
import { TesseraError } from "../core/errors/tessera-error.js";
import { resolveDefaultModel } from "../gguf/default-model.js";
import { buildOptionFuzzCase, type OptionFuzzCase } from "./option-fuzz-case.js";
import type { OptionFuzzReply, OptionFuzzRequest } from "./option-fuzz-protocol.js";

const tokensRead = 8;

class CaseErrors {
  readonly names: string[] = [];
  #typedMessage: string | undefined;
  #untypedMessage: string | undefined;

  add(error: unknown): void {
    const typed = TesseraError.isInstance(error);
    this.names.push(error instanceof Error ? error.name : typeof error);
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    if (typed) this.#typedMessage ??= message;
    else this.#untypedMessage ??= message;
  }

  get untyped(): boolean {
    return this.#untypedMessage !== undefined;
  }

  get message(): string | undefined {
    return this.#untypedMessage ?? this.#typedMessage;
  }
}

async function readGenerations(
  context: LlamaContext,
  fuzzCase: OptionFuzzCase,
  errors: CaseErrors,
): Promise<void> {
  const readers = fuzzCase.generations.map(async (generation) => {
    try {
      const stream = context.generate(
        generation.prompt as ArrayLike<number>,
        generation.options as GenerateTokensOptions,
      );
      let read = 0;
      for await (const _event of stream) if (++read >= tokensRead) break;
    } catch (error) {
      errors.add(error);
    }
  });
  await Promise.all(readers);
}

async function runCase(
  fuzzCase: OptionFuzzCase,
  sharedModel: LlamaModel,
  modelPath: string,
): Promise<Omit<OptionFuzzReply, "id" | "milliseconds" | "peakRssBytes">> {
  const errors = new CaseErrors();
  let stage: OptionFuzzReply["stage"] = "load";
  let ownModel: LlamaModel | undefined;
  try {
    if (fuzzCase.load !== undefined) {
      ownModel = await loadLlamaModel(modelPath, fuzzCase.load as LoadLlamaModelOptions);
    }
    stage = "context";
    const context = await (ownModel ?? sharedModel).createContext(fuzzCase.context as LlamaContextOptions);
    stage = "generate";
    try {
      await readGenerations(context, fuzzCase, errors);
    } finally {
      context.dispose();
    }
  } catch (error) {
    errors.add(error);
  } finally {
    ownModel?.dispose();
  }
  const outcome = errors.untyped ? "untyped-error" : errors.names.length > 0 ? "typed-error" : "ok";
  const message = errors.message;
  return { outcome, stage, errors: errors.names, ...(message !== undefined && { message }) };
}

/** Peak resident memory of this process (Linux VmHWM); the current RSS elsewhere. */
function peakRssBytes(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage.rss();
}

async function main(): Promise<void> {
  const runSeed = Number(process.argv[2] ?? "1");
  const modelPath = await resolveDefaultModel();
  const model = await loadLlamaModel(modelPath);
  process.stdout.write(`${JSON.stringify({ ready: true, vocabSize: model.vocabSize })}\n`);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const request = JSON.parse(line) as OptionFuzzRequest;
    const started = performance.now();
    const result = await runCase(
      buildOptionFuzzCase(runSeed, request.index, model.vocabSize),
      model,
      modelPath,
    );
    const reply: OptionFuzzReply = {
      id: request.id,
      ...result,
      milliseconds: performance.now() - started,
      peakRssBytes: peakRssBytes(),
    };
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
  model.dispose();
}

main().catch((error: unknown) => {
  process.stderr.write(`option-fuzz-child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(70);
});

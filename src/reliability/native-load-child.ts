// Child process of the native load harness: loads each GGUF path it is sent through the real
// loader (`loadLlamaModel`), and when that succeeds creates a small context and generates three
// tokens, so crashes at context creation or in the first decode are found too. One JSON line in, one
// out. A crash here kills only this process; the parent counts it and starts a fresh one.
import { createInterface } from "node:readline";
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../backends/llamacpp/native-addon.js";
import { TesseraError } from "../core/errors/tessera-error.js";
import { GgufError } from "../gguf/errors/gguf-error.js";
import type { NativeCheckReply, NativeCheckRequest } from "./native-check-protocol.js";
import { validateBeforeNativeLoad } from "./pre-load-validation.js";

const preValidate = process.argv.includes("--pre-validate");

function describe(error: unknown): { errorName: string; message: string; typed: boolean } {
  const typed = TesseraError.isInstance(error) || GgufError.isInstance(error);
  const errorName = error instanceof Error ? error.name : typeof error;
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
  return { errorName, message, typed };
}

async function check(request: NativeCheckRequest): Promise<NativeCheckReply> {
  const started = performance.now();
  let stage: NativeCheckReply["stage"] = "load";
  try {
    if (preValidate) await validateBeforeNativeLoad(request.path);
    const model = await loadLlamaModel(request.path);
    try {
      stage = "context";
      const context = await model.createContext({ contextSize: 64, batchSize: 64, threads: 1 });
      try {
        stage = "generate";
        const prompt = model.tokenize("Hello world");
        const tokens = prompt.length > 0 ? prompt : Int32Array.of(0);
        await context.generate(tokens, { maxTokens: 3, temperature: 0 }).collect();
      } finally {
        context.dispose();
      }
    } finally {
      model.dispose();
    }
    return { id: request.id, outcome: "generated", stage, milliseconds: performance.now() - started };
  } catch (error) {
    const { errorName, message, typed } = describe(error);
    return {
      id: request.id,
      outcome: typed ? "rejected" : "untyped",
      stage,
      errorName,
      message,
      milliseconds: performance.now() - started,
    };
  }
}

async function main(): Promise<void> {
  loadNativeAddon();
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const reply = await check(JSON.parse(line) as NativeCheckRequest);
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`native-load-child failed: ${describe(error).message}\n`);
  process.exit(70);
});

// Generates full-size presets and checks that llama.cpp (node-llama-cpp's prebuilt CPU binary) loads
// them and evaluates a prompt to finite logits. Too big for the test suite (the 1B q4_0 is ~700 MB,
// the 8B q4_0 ~4.7 GB); run after `npm run build`:
//   node benchmarks/gguf-load-check.mjs llama-3.2-1b:q4_0 llama-3.1-8b:q4_0 [--threads 1]
// One line of JSON per model. Files go to a temporary folder and are deleted afterwards.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getLlama } from "node-llama-cpp";
import { generatePresetModel } from "../dist/gguf/index.js";

const args = process.argv.slice(2);
const threadsIndex = args.indexOf("--threads");
const threads = threadsIndex >= 0 ? Number(args[threadsIndex + 1]) : 1;
const requests = args.filter(
  (arg, index) => !arg.startsWith("--") && (threadsIndex < 0 || index !== threadsIndex + 1),
);
const dir = mkdtempSync(join(tmpdir(), "tessera-load-check-"));
const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });

try {
  for (const request of requests.length > 0 ? requests : ["llama-3.2-1b:q4_0"]) {
    const [preset, type = "q4_0"] = request.split(":");
    const path = join(dir, `${preset}-${type}.gguf`);
    const generationStarted = performance.now();
    await generatePresetModel(preset, path, { type: type.toUpperCase() });
    const generationSeconds = (performance.now() - generationStarted) / 1000;
    const loadStarted = performance.now();
    const model = await llama.loadModel({ modelPath: path });
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const context = await model.createContext({ contextSize: 256, threads, batchSize: 64 });
    const tokens = model.tokenize("The quick brown fox");
    const evaluationStarted = performance.now();
    let probabilities = [];
    for await (const output of context.getSequence().evaluateWithMetadata(tokens, { probabilities: true })) {
      probabilities = [...output.probabilities.values()];
      break;
    }
    const evaluationSeconds = (performance.now() - evaluationStarted) / 1000;
    const sum = probabilities.reduce((total, probability) => total + probability, 0);
    const finite = probabilities.every((probability) => Number.isFinite(probability));
    console.log(
      JSON.stringify({
        check: "gguf-load",
        model: `${preset}:${type}`,
        bytes: statSync(path).size,
        generationSeconds: Number(generationSeconds.toFixed(1)),
        loadSeconds: Number(loadSeconds.toFixed(2)),
        promptTokens: tokens.length,
        evaluationSeconds: Number(evaluationSeconds.toFixed(2)),
        threads,
        vocabulary: probabilities.length,
        finite,
        probabilitySum: Number(sum.toFixed(4)),
        ok: finite && Math.abs(sum - 1) < 1e-3,
        date: new Date().toISOString(),
      }),
    );
    await context.dispose();
    await model.dispose();
    rmSync(path, { force: true });
  }
} finally {
  await llama.dispose();
  rmSync(dir, { recursive: true, force: true });
}

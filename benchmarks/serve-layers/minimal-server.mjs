// The smallest streaming /v1/completions server over tessera's layers, for benchmarks/serve-layers.mjs:
// node's own http module, no Fastify, no validation, no slots or metrics. `backend` goes through the
// llama.cpp backend and the thunk (generateFromRaw, the path `tessera serve` takes); `context` calls
// LlamaContext.generate on prompt tokens (the native engine and its token stream only). Not a server to
// use: it trusts its input. Usage: node minimal-server.mjs backend|context <port> <model path>
import { createServer } from "node:http";
import { CBlock, LlamaCppBackend, loadLlamaModel, SimpleContext } from "../../dist/index.js";

const [mode, port, modelPath] = process.argv.slice(2);
if (mode !== "backend" && mode !== "context") throw new Error("mode must be backend or context");
const settings = { contextSize: 512, threads: 1, sequences: 1, flashAttention: "off" };
const backend = mode === "backend" ? await LlamaCppBackend.create({ model: modelPath, ...settings }) : null;
const model = mode === "context" ? await loadLlamaModel(modelPath) : null;
const context = model === null ? null : await model.createContext(settings);

// `started` runs once the generation is running, as tessera serve sends its headers then (the backend
// refuses up front, so a started generation is an accepted one).
async function answer(request, started, send) {
  if (backend !== null) {
    const [thunk] = await backend.generateFromRaw([new CBlock(request.prompt)], new SimpleContext(), {
      modelOptions: { maxNewTokens: request.max_tokens, temperature: 0, rawPrompt: true },
    });
    started();
    for await (const part of thunk.parts()) if (part.type === "text-delta") send(part.text);
  } else {
    const tokens = model.tokenize(request.prompt);
    const stream = context.generate(tokens, { maxTokens: request.max_tokens, temperature: 0 });
    started();
    for await (const event of stream) send(event.text);
  }
}

const server = createServer((req, res) => {
  if (req.method !== "POST") {
    res.end('{"status":"ok"}');
    return;
  }
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    const started = () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
    };
    const send = (text) => {
      res.write(`data: ${JSON.stringify({ object: "text_completion", choices: [{ index: 0, text }] })}\n\n`);
    };
    let request;
    try {
      request = JSON.parse(body);
    } catch (error) {
      res.writeHead(400, { "content-type": "text/plain" });
      res.end(`the body is not JSON: ${error.message}`);
      return;
    }
    answer(request, started, send).then(
      () => res.end("data: [DONE]\n\n"),
      (error) => {
        // Before the start, a plain error; after it, an error event and no [DONE], as tessera serve does.
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end(String(error));
        } else res.end(`data: ${JSON.stringify({ error: { message: String(error) } })}\n\n`);
      },
    );
  });
});
server.listen(Number(port), "127.0.0.1");
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    server.close();
    process.exit(0);
  });
}

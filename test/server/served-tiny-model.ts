// The generated tiny model behind a real tessera serve on 127.0.0.1 with the official client pointed at
// it: the setup of the test files that check the protocol end to end on the real addon (one thread).
import OpenAI from "openai";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { startTesseraServer, type TesseraServer } from "../../src/server/index.js";

export interface ServedTinyModel {
  backend: LlamaCppBackend;
  server: TesseraServer;
  client: OpenAI;
}

export async function serveTinyModel(options: {
  sequences: number;
  queue?: number;
}): Promise<ServedTinyModel> {
  const backend = await LlamaCppBackend.create({
    threads: 1,
    sequences: options.sequences,
    contextSize: 256,
  });
  const server = await startTesseraServer({
    backend,
    port: 0,
    ...(options.queue !== undefined && { queue: options.queue }),
  });
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "none", maxRetries: 0 });
  return { backend, server, client };
}

/** Closes what serveTinyModel started (tolerates a setup that failed half-way). */
export async function stopServedTinyModel(served: Partial<ServedTinyModel>): Promise<void> {
  await served.server?.close();
  await served.backend?.dispose();
}

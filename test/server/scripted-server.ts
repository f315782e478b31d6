// A tessera serve on a scripted backend plus an official client for it; closed after each test.
import OpenAI from "openai";
import { afterEach } from "vitest";
import { startTesseraServer, type TesseraServer, type TesseraServerOptions } from "../../src/server/index.js";
import { ScriptedBackend, type ScriptedBackendOptions } from "../../src/testing/index.js";

export type ScriptedServerOptions = Partial<Omit<TesseraServerOptions, "backend">> & {
  scripted?: Partial<ScriptedBackendOptions>;
};

let current: TesseraServer | null = null;

/** Call once at the top of a test file: every server started by serve() closes after its test. */
export function closeServersAfterEach(): void {
  afterEach(async () => {
    await current?.close();
    current = null;
  });
}

export async function serve(
  responses: ScriptedBackendOptions["responses"],
  options: ScriptedServerOptions = {},
) {
  const { scripted: backendOptions, ...serverOptions } = options;
  const backend = new ScriptedBackend({ responses, modelId: "scripted-model", ...backendOptions });
  const server = await startTesseraServer({ backend, port: 0, ...serverOptions });
  current = server;
  const client = new OpenAI({
    baseURL: `${server.url}/v1`,
    apiKey: serverOptions.apiKey ?? "none",
    maxRetries: 0,
  });
  return { backend, server, client };
}

export const hello = [{ role: "user" as const, content: "Say hello" }];

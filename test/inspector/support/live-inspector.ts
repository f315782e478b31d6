// The live inspector as the inspector and browser tests start it: the real addon with the tiny model, a
// two-sequence context on one thread, a session and its server on 127.0.0.1 with the per-run token.
import type { LlamaModel } from "../../../src/backends/llamacpp/llama-model.js";
import { type InspectorServer, startInspectorServer } from "../../../src/inspector/live/inspector-server.js";
import { InspectorSession } from "../../../src/inspector/live/inspector-session.js";
import { loadTinyModel } from "../../native/tiny-model.js";

export interface LiveInspector {
  model: LlamaModel;
  session: InspectorSession;
  server: InspectorServer;
  /** The headers that carry the server's token. */
  auth: Record<string, string>;
  /** Closes the server, then the session, then frees the model. */
  close(): Promise<void>;
}

export async function startLiveInspector(contextSize = 512): Promise<LiveInspector> {
  const model = await loadTinyModel();
  let session: InspectorSession | undefined;
  try {
    const context = await model.createContext({ contextSize, batchSize: 64, sequences: 2, threads: 1 });
    session = new InspectorSession(model, context, "tiny");
    const server = await startInspectorServer({ session });
    const opened = session;
    return {
      model,
      session,
      server,
      auth: { "x-tessera-token": server.token },
      async close() {
        await server.close();
        await opened.close();
        model.dispose();
      },
    };
  } catch (error) {
    // A half-started inspector would otherwise keep the model (and its context) for the rest of the run.
    await session?.close();
    model.dispose();
    throw error;
  }
}

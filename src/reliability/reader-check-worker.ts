// Worker thread of the reader check: runs our TypeScript reader and model validation on one path per
// message. It is a worker so that a reader bug that loops or allocates without bound (a header field
// trusted as a count) is a counted hang or out-of-memory, not a stuck or killed fuzz run.
import { parentPort } from "node:worker_threads";
import { checkWithReader } from "./reader-check.js";

parentPort?.on("message", (message: { id: number; path: string }) => {
  void checkWithReader(message.path).then((result) => parentPort?.postMessage({ id: message.id, result }));
});

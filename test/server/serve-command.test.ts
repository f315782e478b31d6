// `tessera serve` as users run it: the built CLI in a child process, on the tiny model.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let child: ChildProcess;
let baseUrl: string;

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [
      "dist/cli/main.js",
      "serve",
      "--port",
      "0",
      "--threads",
      "1",
      "--parallel",
      "2",
      "--context-size",
      "256",
    ],
    // The key from the environment, as scripts should pass it (command lines show up in ps).
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TESSERA_API_KEY: "k" } },
  );
  let output = "";
  let errors = "";
  child.stderr!.on("data", (data: Buffer) => {
    errors += data.toString();
  });
  baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (data: Buffer) => {
      output += data.toString();
      const match = /at (http:\/\/\S+\/v1)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on("exit", (code) => reject(new Error(`tessera serve exited with ${code}: ${errors}`)));
  });
});

afterAll(async () => {
  if (child.exitCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
});

describe("tessera serve", () => {
  it("binds to 127.0.0.1 and answers the official client with the API key", async () => {
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = new OpenAI({ baseURL: baseUrl, apiKey: "k", maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "tiny",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 4,
    });
    expect(completion.usage?.completion_tokens).toBe(4);
    const refused = await fetch(`${baseUrl}/models`);
    expect(refused.status).toBe(401);
  });

  it("finishes a running stream on SIGTERM, then exits cleanly", async () => {
    const client = new OpenAI({ baseURL: baseUrl, apiKey: "k", maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "tiny",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 200,
      stream: true,
      stream_options: { include_usage: true },
    });
    const exited = once(child, "exit");
    let signalled = false;
    let tokens = 0;
    for await (const chunk of stream) {
      if (!signalled) {
        child.kill("SIGTERM");
        signalled = true;
      }
      tokens = chunk.usage?.completion_tokens ?? tokens;
    }
    expect(tokens).toBe(200);
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it("exits with one clear line when the port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const second = spawn(
        process.execPath,
        ["dist/cli/main.js", "serve", "--port", String(port), "--threads", "1"],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let errors = "";
      second.stderr!.on("data", (data: Buffer) => {
        errors += data.toString();
      });
      const [code] = await once(second, "exit");
      expect(code).toBe(1);
      expect(errors).toMatch(/^tessera: .*EADDRINUSE/);
    } finally {
      blocker.close();
    }
  });
});

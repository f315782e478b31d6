// `tessera serve` as users run it: the built CLI in a child process, on the default model (tiny-text).
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
      model: "tiny-text",
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
      model: "tiny-text",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 200,
      // A fixed seed: this one does not sample the end-of-sequence token within 200 tokens.
      seed: 1,
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
      // One line in CLI words: the flag to change, not Node's "listen EADDRINUSE" (besides the note that
      // the default model's weights are random).
      const lines = errors
        .trim()
        .split("\n")
        .filter((line) => !line.startsWith("tessera: note:"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^tessera: .*port.*--port/);
      expect(errors).not.toContain("EADDRINUSE");
    } finally {
      blocker.close();
    }
  });
});

describe("tessera serve -m … --alias …", () => {
  it("serves the model under its name and every alias, and 404s any other name", async () => {
    const aliased = spawn(
      process.execPath,
      [
        "dist/cli/main.js",
        "serve",
        "-m",
        "tiny",
        "--alias",
        "gpt-4o",
        "--alias",
        "gpt-4o-mini",
        "--port",
        "0",
        "--threads",
        "1",
        "--parallel",
        "1",
        "--context-size",
        "128",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      let output = "";
      let errors = "";
      aliased.stderr!.on("data", (data: Buffer) => {
        errors += data.toString();
      });
      const url = await new Promise<string>((resolve, reject) => {
        aliased.stdout!.on("data", (data: Buffer) => {
          output += data.toString();
          const match = /at (http:\/\/\S+\/v1)/.exec(output);
          if (match) resolve(match[1]!);
        });
        aliased.on("exit", (code) => reject(new Error(`tessera serve exited with ${code}: ${errors}`)));
      });
      const client = new OpenAI({ baseURL: url, apiKey: "none", maxRetries: 0 });
      const models = await client.models.list();
      expect(models.data.map((model) => model.id)).toEqual(["tiny", "gpt-4o", "gpt-4o-mini"]);
      const messages = [{ role: "user" as const, content: "Hi" }];
      for (const model of ["tiny", "gpt-4o", "gpt-4o-mini"]) {
        const completion = await client.chat.completions.create({ model, messages, max_tokens: 2 });
        expect(completion.usage?.completion_tokens).toBe(2);
      }
      const refused = await client.chat.completions
        .create({ model: "gpt-5", messages, max_tokens: 2 })
        .catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
      expect((refused as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    } finally {
      if (aliased.exitCode === null) {
        aliased.kill("SIGTERM");
        await once(aliased, "exit");
      }
    }
  });
});

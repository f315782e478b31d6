// Every failure the command line can meet is one `tessera: ` line naming the flag to change, through the
// real command: unwritable --out paths, a missing file for `models info`, a taken --port, a broken GGUF,
// commander's own usage errors, and a chat whose context is full or whose answer is interrupted.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linesOf, runCli, withoutNotices } from "./support/run-cli.js";

function expectOneLine(stderr: string, pattern: RegExp): void {
  const lines = linesOf(withoutNotices(stderr));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^tessera: /);
  expect(lines[0]).toMatch(pattern);
  // No raw system-call text ("EEXIST: file already exists, mkdir '/etc/passwd'").
  expect(lines[0]).not.toMatch(/\bE[A-Z]{3,}\b|, (mkdir|stat|open|listen) /);
}

describe("an unwritable --out fails at once with one line", () => {
  for (const out of ["/proc/nope/x.gguf", "/etc/passwd/x.gguf", "/proc/version/x.gguf"]) {
    it(`models make tiny --out ${out}`, async () => {
      // /proc/nope spun forever in Node's recursive mkdir: the timeout is what fails the unfixed command.
      const result = await runCli(["models", "make", "tiny", "--out", out], { timeoutMs: 15_000 });
      expect(result.code).toBe(1);
      expectOneLine(result.stderr, new RegExp(`Cannot write ${out}: .*pass another --out\\.$`));
    });
  }
});

describe("tessera models info", () => {
  it("names a missing file without a raw ENOENT", async () => {
    const result = await runCli(["models", "info", "/nonexistent.gguf"]);
    expect(result.code).toBe(1);
    expectOneLine(
      result.stderr,
      /Cannot read \/nonexistent\.gguf: no such file\. .*tessera models info <file>/,
    );
  });

  it("says a folder is not a file", async () => {
    const result = await runCli(["models", "info", tmpdir()]);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /it is not a file/);
  });
});

describe("tessera serve on a taken port", () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it("says the port is in use and names --port", async () => {
    const result = await runCli(["serve", "--threads", "1", "--port", String(port)]);
    expect(result.code).toBe(1);
    expectOneLine(
      result.stderr,
      new RegExp(`port ${port} on 127\\.0\\.0\\.1: another process uses it.*--port`),
    );
  });
});

describe("one style for every error", () => {
  it("commander's usage errors start with tessera: too", async () => {
    const result = await runCli(["run", "--top-p", "2", "x"]);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      "tessera: option '--top-p <p>' argument '2' is invalid. Expected a number in (0, 1].",
    ]);
  });

  it("a broken GGUF points to tessera models info, a command that exists", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tessera-cli-")), "broken.gguf");
    writeFileSync(file, "this is not a model file, only some bytes of text");
    const result = await runCli(["run", "--threads", "1", "--model", file, "x"]);
    expect(result.code).toBe(1);
    const line = linesOf(result.stderr)[0]!;
    expect(line).toMatch(
      /^tessera: Could not load the model .*--model.*`tessera models info .*broken\.gguf`/,
    );
    expect(line).not.toMatch(/`gguf` reader/);
  });

  it("a prompt too long for run names --max-tokens and --context-size", async () => {
    const result = await runCli(["run", "--threads", "1", "--context-size", "64", "word ".repeat(400)]);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /--max-tokens.*--context-size/);
    expect(result.stderr).not.toMatch(/contextSize|maxTokens/);
  });
});

describe("tessera chat speaks CLI", () => {
  it("a full context suggests --context-size, --window and /reset", async () => {
    const result = await runCli(["chat", "--threads", "1", "--context-size", "64", "-n", "4"], {
      input: `${"word ".repeat(400)}\nHi\n`,
    });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /--context-size.*--window.*\/reset/);
    expect(result.stderr).not.toMatch(/contextSize|maxTokens/);
  });

  it("Ctrl-C during an answer says it was interrupted, in CLI words", async () => {
    // A real terminal (util-linux `script` gives the command a pty), so readline sees Ctrl-C as a key.
    const command = `${process.execPath} dist/cli/main.js chat --threads 1 --ignore-eos -n 2000 --context-size 2048`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", TERM: "dumb" },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    const waitFor = async (pattern: RegExp, timeoutMs = 30_000) => {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      await waitFor(/Chatting with/);
      child.stdin.write("Hello\r");
      // Wait until the answer streams (the output grows past the echoed prompt), then press Ctrl-C.
      await waitFor(/Hello[\s\S]{40,}/);
      child.stdin.write("\x03");
      await waitFor(/tessera: Interrupted/);
      child.stdin.write("/exit\r");
      await new Promise((resolve) => child.on("close", resolve));
    } finally {
      child.kill("SIGKILL");
    }
    expect(output).toMatch(
      /tessera: Interrupted after \d+ characters of output; this turn is left out of the history\./,
    );
    expect(output).not.toMatch(/partialText|thunk\.value/);
  }, 60_000);
});

describe("tessera serve with an API key it cannot use", () => {
  // An empty key matched every request's empty (or missing) Authorization header: the server looked
  // guarded and was open, without even the warning a server without a key prints.
  it("refuses --api-key '' naming the flag, before loading the model", async () => {
    const result = await runCli(["serve", "--api-key", "", "--port", "0", "--threads", "1"]);
    expect(result.code).toBe(1);
    expectOneLine(
      result.stderr,
      /--api-key is empty.*Give a key, or leave out --api-key to serve without one/,
    );
  });

  it("refuses an empty TESSERA_API_KEY naming the variable", async () => {
    const result = await runCli(["serve", "--port", "0", "--threads", "1"], { env: { TESSERA_API_KEY: "" } });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /TESSERA_API_KEY is empty.*or unset TESSERA_API_KEY/);
  });

  it("names the flag when both are empty and the flag was typed", async () => {
    const result = await runCli(["serve", "--api-key", "", "--port", "0"], { env: { TESSERA_API_KEY: "" } });
    expectOneLine(result.stderr, /--api-key is empty/);
  });

  it("refuses a key with a trailing space, which HTTP would trim from every request", async () => {
    const result = await runCli(["serve", "--port", "0"], { env: { TESSERA_API_KEY: "secret " } });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /TESSERA_API_KEY has spaces at its ends/);
  });
});

// `tessera inspect --serve` as a user runs it (the built CLI, real model, real HTTP): it prints a
// 127.0.0.1 URL with the token, serves the page there, refuses a request without the token, and stops on
// Ctrl-C. --serve with --out or a prompt is a one-line usage error.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli/support/run-cli.js";
import { httpRequest } from "./http-request.js";

describe("tessera inspect --serve", () => {
  it("prints the URL with its token, serves the page there, and stops on SIGINT", async () => {
    const child = spawn(
      process.execPath,
      ["dist/cli/main.js", "inspect", "--serve", "--threads", "1", "--sequences", "2"],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1" },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const url = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL in 60 s:\n${stderr}`)), 60_000);
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        const match = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(stdout);
        if (match !== null) {
          clearTimeout(timer);
          resolve(new URL(match[1]!));
        }
      });
      child.on("exit", (code) => reject(new Error(`exited ${code}:\n${stderr}`)));
    });
    const port = Number(url.port);
    const page = await httpRequest(port, `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Tessera live inspector");
    expect((await httpRequest(port, "/")).status).toBe(401);
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });

  it("refuses --out and a prompt with --serve, and needs --out without it", async () => {
    const withOut = await runCli(["inspect", "--serve", "-o", "x.html"]);
    expect(withOut.code).toBe(1);
    expect(withOut.stderr.trim().split("\n")).toHaveLength(1);
    expect(withOut.stderr).toContain("--serve takes no --out");
    const neither = await runCli(["inspect", "hello"]);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain("--out");
  });
});

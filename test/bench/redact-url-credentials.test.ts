// A URL's user and password never reach a message, a printed command or a results file: redactedUrl for
// one URL, redactCredentialsIn for any text that may quote one (a --remote spec, a command line).
import { describe, expect, it } from "vitest";
import { InvalidRemoteSpecError } from "../../src/bench/errors/invalid-remote-spec-error.js";
import {
  redactCredentialsIn,
  redactCredentialsInArgument,
  redactedRemoteSpec,
  redactedUrl,
} from "../../src/bench/redact-url-credentials.js";
import { parseRemoteSpec } from "../../src/bench/remote-targets.js";
import { benchCommandLine } from "../../src/cli/bench-output.js";

describe("URL credentials in messages and results", () => {
  it("redacts a URL that parses, and one that does not", () => {
    expect(redactedUrl("http://user:hunter2@127.0.0.1:8080/v1?x=1")).toBe(
      "http://***:***@127.0.0.1:8080/v1?x=1",
    );
    expect(redactedUrl("https://user@h/")).toBe("https://***@h/");
    // No URL parser accepts these, yet each quotes a password.
    for (const url of [
      "//u:hunter2@h/",
      "http://user:hunter2@h:99999/",
      "http://user:hunter2@/",
      "http://user:hunter2@%zz/",
    ])
      expect(redactedUrl(url)).not.toContain("hunter2");
  });

  it("leaves text without credentials as it was, byte for byte", () => {
    for (const text of [
      "http://127.0.0.1:8080/v1",
      "http://[::1]:8080/v1/completions?email=a@b#c@d",
      "https://h/path/with@sign",
      "http://a/v1,m,KEY",
      "not a url",
      "",
      "http://h/ trailing ",
      "https://h//@scope/pkg",
      "file:///@x",
      "https://x.com/a//b@c",
      "https://h/?next=//u@x",
      "https://h/#//a@b",
      "http://@h/",
      "user@host:path",
      "mailto:a@b.example",
      "C:\\Users\\me@x",
      "see a@b.example, or c@d",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell template in a command, on purpose
      "http://localhost:${PORT}/@types/node",
      "https://<host>:<port>/@scope/pkg",
      "git@github.com:x/y.git",
      "npm:@scope/pkg@1.0",
      "key=value@x",
      "data:text/plain;charset=utf-8,hi@x",
      '{"email":"a@b.c","url":"https://h/@u"}',
      "[a](mailto:a@b)",
    ]) {
      expect(redactCredentialsIn(text)).toBe(text);
      expect(redactedUrl(text)).toBe(text);
    }
  });

  it("redacts the spellings a URL parser reads as credentials, in any word of a text", () => {
    for (const text of [
      "http:\\\\u:hunter2@h/v1",
      "http:/u:hunter2@h/v1",
      "http:u:hunter2@h/v1",
      "http://u:hun\tter2@h/v1",
      "--remote=HTTP://u:hunter2@h/v1,m",
      "a http://u:hunter2@h/v1,m and https://v:hunter2@g/x",
      "http:\\\\u:hunter2@h:99999/v1,m",
      "'http:u:hunter2@h'",
      "(https:/u:hunter2@h)",
    ])
      expect(redactCredentialsIn(text), text).not.toContain("hunter2");
    // One argument, however quoted: a space or tab in a password does not end its URL.
    for (const argument of [
      "--remote=https://u:hun ter2@h/v1,m",
      "https://u:hun\tter2@h/v1,m",
      "via http:u:hunter2@h",
      "a b http:\\\\u:hunter2@h/v1",
      "x (http:u:hunter2@h) y",
      "a\thttp:u:hunter2@h",
      "x http:u:hunter2@h:99999/v1",
    ])
      expect(redactCredentialsInArgument(argument), argument).not.toContain("ter2");
    // A password cut at a comma whose first part is a port.
    for (const spec of ["https://u:12,hunter2@h/v1,model", "https://u:8080,hunter2@h,model"])
      expect(redactedRemoteSpec(spec), spec).not.toContain("hunter2");
    expect(redactedRemoteSpec(" https://h/v1 ,model")).toBe(" https://h/v1 ,model");
  });

  it("takes linear time on long words", () => {
    const started = performance.now();
    for (const text of [
      "a".repeat(100_000),
      `//${"a".repeat(100_000)}`,
      `${"a".repeat(50_000)}//${"b".repeat(50_000)}`,
    ])
      expect(redactCredentialsIn(text)).toBe(text);
    // A generous bound: the quadratic pattern this replaced took 5-12 s here.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("keeps the password out of a refused --remote spec, even one whose comma split the password", () => {
    for (const spec of [
      "http://user:hunter2%zz@127.0.0.1:1/v1,m",
      "http://user:hunter2@127.0.0.1:1/v1,m,NO_SUCH_VARIABLE",
      "http://user:hunter2@127.0.0.1:99999/v1,m",
      "ftp://user:hunter2@127.0.0.1/v1,m",
      "http://user:hunt,er2@127.0.0.1:1/v1,m",
      "http:\\\\u:hunter2@h:99999/v1,m",
      "http://u:hun ter2@h:99999/v1,m",
    ]) {
      let error: unknown;
      try {
        parseRemoteSpec(spec, {});
      } catch (caught) {
        error = caught;
      }
      expect(InvalidRemoteSpecError.isInstance(error), spec).toBe(true);
      const refused = error as InvalidRemoteSpecError;
      expect(refused.message, spec).not.toMatch(/hunt|er2/);
      expect(refused.spec, spec).not.toMatch(/hunt|er2/);
    }
  });

  it("keeps the password out of the command a result records", () => {
    for (const remote of [
      ["--remote", "http://u:hunter2@h/v1,m"],
      ["--remote=http://u:hunter2@h/v1,m"],
      ["--remote", "http://a/v1,m", "https://u:hunter2@h/v1,m,KEY"],
    ]) {
      const line = benchCommandLine(
        ["/usr/bin/node", "/x/tessera", "bench", "ttfb", ...remote],
        [],
        "/x",
        undefined,
      );
      expect(line).not.toContain("hunter2");
      expect(line).toContain("***@h/v1,m");
    }
  });
});

import { describe, expect, test } from "vitest";
import { StopSequenceMatcher } from "../../src/backends/llamacpp/stop-sequence-matcher.js";

function run(stops: string[], pieces: string[]): { emitted: string; stopped: boolean } {
  const matcher = new StopSequenceMatcher(stops);
  let emitted = "";
  for (const piece of pieces) {
    emitted += matcher.push(piece);
    if (matcher.stopped) break;
  }
  if (!matcher.stopped) emitted += matcher.flush();
  return { emitted, stopped: matcher.stopped };
}

describe("StopSequenceMatcher", () => {
  test("passes text through when there are no stop sequences", () => {
    expect(run([], ["a", "b"])).toEqual({ emitted: "ab", stopped: false });
  });

  test("finds a stop sequence split across pieces and never emits it", () => {
    expect(run(["END"], ["hello E", "N", "D world"])).toEqual({ emitted: "hello ", stopped: true });
  });

  test("holds back a possible prefix, then releases it when it does not complete", () => {
    const matcher = new StopSequenceMatcher(["</s>"]);
    expect(matcher.push("a </")).toBe("a ");
    expect(matcher.push("b>")).toBe("</b>");
    expect(matcher.stopped).toBe(false);
  });

  test("releases held text at the end of the generation", () => {
    expect(run(["stop"], ["one st"])).toEqual({ emitted: "one st", stopped: false });
  });

  test("the earliest of several stop sequences wins", () => {
    expect(run(["world", "lo w"], ["hello world"])).toEqual({ emitted: "hel", stopped: true });
  });

  test("a stop sequence at the very start leaves nothing", () => {
    expect(run(["\n"], ["\nmore"])).toEqual({ emitted: "", stopped: true });
  });

  test("emits nothing after stopping", () => {
    const matcher = new StopSequenceMatcher(["x"]);
    matcher.push("ax");
    expect(matcher.push("more")).toBe("");
    expect(matcher.flush()).toBe("");
  });
});

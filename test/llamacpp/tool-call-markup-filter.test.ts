// The local backend's tool-call markup ends inside the backend (moved here from the server's
// ToolCallTextFilter test): no reader of its stream ever sees it.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolCallMarkupFilter } from "../../src/backends/llamacpp/tool-call-markup-filter.js";
import { tool } from "../../src/core/tool.js";

const f = tool({ name: "f", description: "f", parameters: z.object({}), run: () => "done" });
const tools = { f };

describe("ToolCallMarkupFilter", () => {
  it("holds back tool-call markup and turns it into calls", () => {
    const markup = new ToolCallMarkupFilter(true);
    const sent = ["<tool", '_call>{"name":"f","arguments":{}}', "</tool_call>"].map((piece) =>
      markup.push(piece),
    );
    expect(sent.join("")).toBe("");
    const parsed = markup.finish(tools);
    expect(parsed.text).toBe("");
    expect(parsed.calls.map((call) => call.name)).toEqual(["f"]);
  });

  it("never turns markup into text, also when a call was cut off", () => {
    const cutOff = new ToolCallMarkupFilter(true);
    cutOff.push('<tool_call>{"name":"f","arguments":{}}</tool_call>\n<to');
    const first = cutOff.finish(tools);
    expect(first.text).toBe("");
    expect(first.calls).toHaveLength(1);
    const unfinished = new ToolCallMarkupFilter(true);
    unfinished.push('<tool_call>{"name":"f","argu');
    const second = unfinished.finish(tools);
    expect(second.text).toBe("");
    expect(second.calls).toEqual([]);
    expect(second.rejected[0]?.reason).toContain("cut off");
  });

  it("passes plain text, and everything when no tools are offered", () => {
    const plain = new ToolCallMarkupFilter(true);
    expect(plain.push("<")).toBe("");
    expect(plain.push("b>bold")).toBe("<b>bold");
    expect(plain.push(" more")).toBe(" more");
    expect(plain.finish(tools)).toEqual({ text: "", calls: [], rejected: [] });
    const off = new ToolCallMarkupFilter(false);
    expect(off.push("<tool_call>")).toBe("<tool_call>");
    expect(off.finish(tools).text).toBe("");
  });
});

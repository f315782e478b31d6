// The console-exporter example of docs/observability.md, as written there, run with plain `node` on the
// tiny model (run `npm run build:ts` first: "tessera" resolves to dist/).
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the observability example and prints the spans and the GenAI metrics", async () => {
  const result = await runMarkdownExample(markdownExample("ConsoleSpanExporter"), 300_000);
  expect(result.code, result.stderr).toBe(0);
  const out = result.stdout;
  expect(out.match(/name: 'chat tiny'/g)).toHaveLength(2);
  expect(out.match(/name: 'validation'/g)).toHaveLength(2);
  expect(out).toContain("name: 'sampling'");
  expect(out).toContain("'tessera.sampling.iterations_used': 2");
  expect(out).toContain("sampled 2 times, success: false");
  for (const metric of [
    "gen_ai.client.operation.duration",
    "gen_ai.client.token.usage",
    "gen_ai.client.operation.time_to_first_chunk",
  ]) {
    expect(out).toContain(`name: '${metric}'`);
  }
}, 320_000);

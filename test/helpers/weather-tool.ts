// The tool the OpenAI wire tests offer: one string argument and a fixed answer, so a test can check what
// travels (the JSON schema, the call, the arguments) without anything else varying.
import { z } from "zod";
import { tool } from "../../src/core/tool.js";

export const weatherTool = tool({
  name: "get_weather",
  description: "Weather for a city",
  parameters: z.object({ city: z.string() }),
  run: ({ city }) => `sunny in ${city}`,
});

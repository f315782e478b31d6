import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  extendModelOptionsSchema,
  InvalidModelOptionError,
  mergeModelOptions,
  UnknownModelOptionError,
  validateModelOptions,
} from "../../src/core/index.js";

describe("model options", () => {
  it("merges layers with later ones winning and undefined never overriding", () => {
    const merged = mergeModelOptions(
      { temperature: 0.8, seed: 1, maxNewTokens: 100 },
      { temperature: 0.5, stream: true },
      { temperature: 0, seed: undefined },
      undefined,
      null,
    );
    expect(merged).toEqual({ temperature: 0, seed: 1, maxNewTokens: 100, stream: true });
  });

  it("accepts every documented option", () => {
    const options = {
      temperature: 0,
      topK: 0,
      topP: 1,
      minP: 0.05,
      typicalP: 1,
      repeatPenalty: 1.1,
      frequencyPenalty: -0.5,
      presencePenalty: 0.5,
      logitBias: { "42": -100 },
      maxNewTokens: 16,
      seed: 7,
      systemPrompt: "be brief",
      stopSequences: ["\n"],
      tools: [],
      thinking: "low" as const,
      stream: true,
      contextWindow: 2048,
      logits: 5,
      rawLogits: "full" as const,
    };
    expect(validateModelOptions(options)).toEqual(options);
    expect(validateModelOptions({ logits: false })).toEqual({ logits: false });
    expect(validateModelOptions(undefined)).toEqual({});
  });

  it("names an unknown option and lists the valid ones", () => {
    let caught: unknown;
    try {
      validateModelOptions({ temprature: 0.2 });
    } catch (error) {
      caught = error;
    }
    expect(UnknownModelOptionError.isInstance(caught)).toBe(true);
    const error = caught as UnknownModelOptionError;
    expect(error.optionNames).toEqual(["temprature"]);
    expect(error.validOptionNames).toContain("temperature");
    expect(error.message).toMatch(
      /^Unknown model option "temprature"\. Valid options are: temperature, topK, topP, /,
    );
  });

  it.each([
    [
      { temperature: -0.1 },
      'Invalid value for model option "temperature": received -0.1; expected at least 0.',
    ],
    [{ topP: 0 }, 'Invalid value for model option "topP": received 0; expected more than 0.'],
    [{ topP: 1.5 }, 'Invalid value for model option "topP": received 1.5; expected at most 1.'],
    [{ topK: -1 }, 'Invalid value for model option "topK": received -1; expected at least 0.'],
    [{ maxNewTokens: 0 }, 'Invalid value for model option "maxNewTokens": received 0; expected more than 0.'],
  ])("rejects %j", (options, message) => {
    expect(() => validateModelOptions(options)).toThrow(InvalidModelOptionError);
    expect(() => validateModelOptions(options)).toThrow(message);
  });

  it('rejects a logits request that is neither false, a positive integer nor "full"', () => {
    for (const logits of [0, true, "top", 2.5]) {
      expect(() => validateModelOptions({ logits })).toThrow(InvalidModelOptionError);
    }
  });

  it("extends the schema with backend options, still strict", () => {
    const schema = extendModelOptionsSchema({ gpuLayers: z.number().int().optional() });
    expect(validateModelOptions({ gpuLayers: 10, temperature: 1 }, schema)).toEqual({
      gpuLayers: 10,
      temperature: 1,
    });
    expect(() => validateModelOptions({ gpuLayer: 10 }, schema)).toThrow(UnknownModelOptionError);
    expect(() => validateModelOptions({ gpuLayers: 10 })).toThrow(/Unknown model option "gpuLayers"/);
  });
});

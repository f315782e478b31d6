import { HookRegistry, type Requirement, ValidationResult } from "../../src/core/index.js";
import { StandardRequirement } from "../../src/stdlib/index.js";
import { ScriptedBackend, type ScriptedBackendOptions } from "../../src/testing/index.js";

/** A requirement decided in code: passes when the last output contains `word`. */
export function contains(word: string, options: { checkOnly?: boolean } = {}): StandardRequirement {
  return new StandardRequirement(`mentions ${word}`, {
    checkOnly: options.checkOnly ?? false,
    validate: (context) => {
      const text = context.lastOutput()?.value ?? "";
      return text.includes(word) ? true : [false, `"${word}" is missing`];
    },
  });
}

/** Records every validation it makes (the output text it saw), always passing or always failing. */
export function recording(description: string, verdict: boolean, seen: string[]): Requirement {
  return {
    description,
    async validate(_backend, context) {
      seen.push(context.lastOutput()?.value ?? "");
      return new ValidationResult(verdict, { reason: verdict ? null : `${description} failed` });
    },
  };
}

/** A scripted backend with its own hook registry, so tests never share handlers. */
export function scripted(
  responses: ScriptedBackendOptions["responses"],
  options: Omit<ScriptedBackendOptions, "responses"> = {},
): ScriptedBackend {
  return new ScriptedBackend({ responses, hooks: new HookRegistry(), ...options });
}

/** A hook registry recording which sampling hooks fired, in order. */
export function recordedHooks(): { hooks: HookRegistry; events: string[] } {
  const hooks = new HookRegistry();
  const events: string[] = [];
  hooks.on("samplingLoopStart", () => {
    events.push("start");
  });
  hooks.on("samplingIteration", ({ iteration, validations }) => {
    events.push(
      `iteration ${iteration} ${validations.every(([, result]) => result.result) ? "pass" : "fail"}`,
    );
  });
  hooks.on("samplingLoopEnd", ({ result, error }) => {
    events.push(error === null ? `end ${result?.success ? "success" : "failure"}` : "end error");
  });
  return { hooks, events };
}

export { type ActAction, type ActOptions, type ActResult, type ActStreamResult, act } from "./act.js";
export { type ChatOptions, type ChatResult, chat } from "./chat.js";
export {
  type GenerativeFunction,
  type GenerativeSpec,
  type GenerativeTarget,
  generative,
} from "./generative.js";
export { type InstructOptions, instruct } from "./instruct.js";
export { query, transform } from "./query.js";
export { type RunToolCallsOptions, runToolCalls } from "./run-tool-calls.js";
export { type ValidateCallOptions, validate } from "./validate.js";

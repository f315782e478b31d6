export { jsonSchemaRequirement } from "./json-stream-requirement.js";
export { type JudgeVerdict, readJudgeAnswer } from "./judge-verdict.js";
export { check, isRequirement, req, reqify, uniqueRequirements } from "./requirement-helpers.js";
export { RequirementJudge } from "./requirement-judge.js";
export { extractJsonText, schemaRequirement } from "./schema-requirement.js";
export { simpleValidate, type TextCheck } from "./simple-validate.js";
export {
  StandardRequirement,
  type StandardRequirementOptions,
  type StreamValidationFunction,
  type ValidationFunction,
} from "./standard-requirement.js";
export {
  type StreamFailure,
  type StreamValidationOptions,
  streamingRequirements,
  validateWhileStreaming,
} from "./stream-validation.js";
export {
  type TokenCheck,
  type TokenSignalEvent,
  type TokenSignalRequirementOptions,
  tokenSignalRequirement,
} from "./token-signal-requirement.js";
export {
  chosenLogprob,
  maxEntropyRequirement,
  meanLogprobWindowRequirement,
  minTokenLogprobRequirement,
  probabilityGapRequirement,
  stepEntropy,
  type TraceKind,
} from "./token-signals.js";
export { toValidationResult, type ValidationOutcome } from "./validation-outcome.js";

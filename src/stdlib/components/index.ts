// Chat components live in messages/ so backends and formatters can use them; stdlib re-exports them.
export { coerceToDocuments, Document } from "../../messages/components/document.js";
export { Message, type MessageOptions } from "../../messages/components/message.js";
export { stringifyToolOutput, ToolMessage } from "../../messages/components/tool-message.js";
export { GenerativeSlot, resultEnvelope } from "./generative-slot.js";
export { Instruction, type InstructionContent, type InstructionOptions } from "./instruction.js";
export { Query } from "./query.js";
export { type Subject, subjectForTemplate } from "./subject-text.js";
export { Transform } from "./transform.js";
export { substituteUserVariables } from "./user-variables.js";

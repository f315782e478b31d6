export { coerceToDocuments, Document } from "./document.js";
export { Message, type MessageOptions } from "./message.js";
export { stringifyToolOutput, ToolMessage } from "./tool-message.js";

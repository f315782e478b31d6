export { ChatContext, type ChatContextOptions } from "./chat-context.js";
export { SimpleContext } from "./simple-context.js";

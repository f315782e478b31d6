// The generative-programming layer: components, requirements, sampling strategies, the functional API and
// the session. Contexts (SimpleContext, ChatContext) are re-exported from their own folder.
export * from "./chunking/index.js";
export * from "./components/index.js";
export * from "./contexts/index.js";
export * from "./errors/index.js";
export * from "./functional/index.js";
export * from "./requirements/index.js";
export * from "./sampling/index.js";
export * from "./session/index.js";

export { Session, type SessionOptions } from "./session.js";
export {
  type BackendFactory,
  registerBackendFactory,
  type StartSessionOptions,
  startSession,
} from "./start-session.js";

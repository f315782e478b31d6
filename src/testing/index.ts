export { ScriptExhaustedError } from "./errors/script-exhausted-error.js";
export {
  ScriptedBackend,
  type ScriptedBackendOptions,
  type ScriptedCall,
  type ScriptedResponse,
} from "./scripted-backend.js";

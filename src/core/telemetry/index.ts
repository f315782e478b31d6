// OpenTelemetry spans and metrics through @opentelemetry/api: no-ops until the user registers an SDK.
export { inApplicationSpan } from "./application-span.js";
export {
  BackendCallObservation,
  type BackendCallObservationStart,
  type GenAiOperation,
} from "./backend-call-observation.js";
export {
  applicationScope,
  backendScope,
  GenAi,
  GenAiMetric,
  genAiSemconvVersion,
  SpanName,
  Tessera,
} from "./gen-ai-conventions.js";
export { inValidationSpan } from "./validation-span.js";

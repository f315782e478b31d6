export { InspectorRequestError } from "./errors/inspector-request-error.js";
export { InspectorTraceMismatchError } from "./errors/inspector-trace-mismatch-error.js";
export { InspectorTreeTooLargeError } from "./errors/inspector-tree-too-large-error.js";
export {
  buildInspectorReport,
  type InspectorAlternative,
  type InspectorDistribution,
  type InspectorReport,
  type InspectorReportInput,
  type InspectorToken,
  inspectorMaxAlternatives,
} from "./inspector-report.js";
export type { InspectorTreeBranch, InspectorTreeReport } from "./inspector-tree-report.js";
export {
  buildInspectorTreeReport,
  type InspectorTreeReportInput,
  maximumTreePageTokens,
} from "./live/branch-export.js";
export {
  type InspectorServer,
  type InspectorServerOptions,
  pageContentSecurityPolicy,
  startInspectorServer,
} from "./live/inspector-server.js";
export { type BranchEvent, type BranchView, InspectorSession } from "./live/inspector-session.js";
export type { SamplerSettings } from "./live/inspector-settings.js";
export type { LiveToken, RemovedBy } from "./live/live-token.js";
export { embedJson, renderInspectorPage, renderInspectorTreePage } from "./render-inspector-page.js";

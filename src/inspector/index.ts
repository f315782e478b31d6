export { InspectorTraceMismatchError } from "./errors/inspector-trace-mismatch-error.js";
export {
  buildInspectorReport,
  type InspectorAlternative,
  type InspectorDistribution,
  type InspectorReport,
  type InspectorReportInput,
  type InspectorToken,
  inspectorMaxAlternatives,
} from "./inspector-report.js";
export { embedJson, renderInspectorPage } from "./render-inspector-page.js";

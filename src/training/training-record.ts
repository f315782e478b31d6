// How a trained model was made, kept in its own GGUF metadata under `tessera.training.*` and shown by
// `tessera models info`. No date or host goes in: with one thread and a seed, training writes the same
// bytes every time, and the record must not be what breaks that (docs/models.md dates each preset).
import { type GgufMetadataEntry, type GgufValue, gguf } from "../gguf/gguf-value.js";

export const trainingRecordPrefix = "tessera.training.";

export interface TrainingRecord {
  /** What the model read: a built-in task with its parameters, or a text file with its SHA-256. */
  readonly corpus: string;
  /** The model training started from (a preset or file name, or a checkpoint when resumed). */
  readonly start: string;
  readonly steps: number;
  readonly epochs: number;
  readonly tokens: number;
  readonly sequenceLength: number;
  readonly learningRate: number;
  readonly schedule: string;
  readonly warmupSteps: number;
  readonly seed: number;
  readonly threads: number;
  /** Training loss (nats per token): ggml-opt's running mean over the last native epoch (a built-in task's whole run). */
  readonly finalLoss: number;
  readonly validationLoss: number;
  /** Validation loss of the starting weights (NaN when not measured). */
  readonly initialValidationLoss: number;
  readonly validationAccuracy: number;
  /** True when training was stopped early (Ctrl-C) and this is the checkpoint kept. */
  readonly stopped: boolean;
  /** Steps of the checkpoint this run resumed from (its optimizer state was not kept), else 0. */
  readonly resumedSteps: number;
  readonly tesseraVersion: string;
}

const numberFields = [
  ["steps", "uint32"],
  ["epochs", "uint32"],
  ["tokens", "uint32"],
  ["sequenceLength", "uint32"],
  ["learningRate", "float32"],
  ["warmupSteps", "uint32"],
  ["seed", "uint32"],
  ["threads", "uint32"],
  ["finalLoss", "float32"],
  ["validationLoss", "float32"],
  ["initialValidationLoss", "float32"],
  ["validationAccuracy", "float32"],
  ["resumedSteps", "uint32"],
] as const;
const stringFields = ["corpus", "start", "schedule", "tesseraVersion"] as const;

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function trainingRecordEntries(record: TrainingRecord): GgufMetadataEntry[] {
  const entries: GgufMetadataEntry[] = [];
  for (const field of stringFields) {
    entries.push({ key: trainingRecordPrefix + snakeCase(field), value: gguf.string(record[field]) });
  }
  for (const [field, type] of numberFields) {
    const value = record[field];
    entries.push({
      key: trainingRecordPrefix + snakeCase(field),
      value:
        type === "uint32"
          ? gguf.uint32(Math.min(0xffffffff, Math.max(0, Math.round(value))))
          : gguf.float32(value),
    });
  }
  entries.push({ key: `${trainingRecordPrefix}stopped`, value: gguf.bool(record.stopped) });
  return entries;
}

/** The record of a trained model's metadata, or undefined for a model tessera did not train. */
export function readTrainingRecord(metadata: ReadonlyMap<string, GgufValue>): TrainingRecord | undefined {
  const corpus = metadata.get(`${trainingRecordPrefix}corpus`);
  if (corpus?.type !== "string") return undefined;
  const record: Record<string, unknown> = { stopped: false };
  for (const field of stringFields) {
    const value = metadata.get(trainingRecordPrefix + snakeCase(field));
    record[field] = value?.type === "string" ? value.value : "";
  }
  for (const [field] of numberFields) {
    const value = metadata.get(trainingRecordPrefix + snakeCase(field));
    record[field] =
      value !== undefined && value.type !== "array" && typeof value.value === "number"
        ? value.value
        : Number.NaN;
  }
  const stopped = metadata.get(`${trainingRecordPrefix}stopped`);
  record.stopped = stopped?.type === "bool" && stopped.value;
  return record as unknown as TrainingRecord;
}

/** Lines for `tessera models info`. */
export function describeTrainingRecord(record: TrainingRecord): string[] {
  const loss = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : "n/a");
  // ggml-opt's figure is a running mean, reset per native epoch; a built-in task puts all its epochs in
  // one native pass (train-model.ts), so there it is the whole run's mean.
  const span = /^(addition|sorting):/.test(record.corpus) ? "the whole run" : "the last epoch";
  return [
    `trained by tessera ${record.tesseraVersion} from ${record.start}${record.resumedSteps > 0 ? ` (resumed after ${record.resumedSteps} steps; optimizer restarted)` : ""}`,
    `corpus: ${record.corpus}`,
    `${record.steps} steps, ${record.epochs} epoch(s), ${record.tokens} tokens, sequence length ${record.sequenceLength}, ` +
      `learning rate ${Number(record.learningRate.toPrecision(3))} (${record.schedule}, ${record.warmupSteps} warm-up steps), seed ${record.seed}, ${record.threads} thread(s)`,
    `training loss ${loss(record.finalLoss)} nats/token (mean over ${span}); validation loss ${loss(record.validationLoss)} ` +
      `(start ${loss(record.initialValidationLoss)}), validation next-token accuracy ${Number.isFinite(record.validationAccuracy) ? `${(record.validationAccuracy * 100).toFixed(1)}%` : "n/a"}` +
      (record.stopped ? "; stopped early (checkpoint)" : ""),
  ];
}

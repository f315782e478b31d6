// Resolves models by file path or preset name, generating presets on first use into the models folder
// (`<package>/models`, or $TESSERA_MODELS_DIR). A model is written to a temporary file in the same
// folder and renamed into place, so concurrent first uses (several test workers) never see a partial
// file; within one process they also share one generation. The temporary name carries the writer's
// pid, so a file left by a process that is gone (killed mid-write) can be told from one being written.
import { existsSync, statSync } from "node:fs";
import { readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { GgufUnknownPresetError } from "./errors/gguf-unknown-preset-error.js";
import type { GgufWriteProgress } from "./gguf-writer.js";
import { writeGgufFile } from "./gguf-writer.js";
import { synthesizeLlamaModel } from "./llama-synthesizer.js";
import {
  isModelPresetName,
  type ModelPreset,
  type ModelPresetName,
  modelPresetNames,
  modelPresets,
} from "./model-presets.js";
import { prepareModelsFolder } from "./prepare-models-folder.js";
import { type WritableTensorType, writableTensorTypeNamed, writableTensorTypes } from "./tensor-encoding.js";
import {
  isTrainedPresetName,
  trainedPresetExists,
  trainedPresetNames,
  trainedPresetPath,
} from "./trained-presets.js";
import { loadVocabulary } from "./vocabulary.js";

export const defaultModelSeed = 1;

export interface GenerateModelOptions {
  readonly type?: WritableTensorType;
  readonly seed?: number;
  /** Models folder for `resolve*`; defaults to `modelsDirectory()`. */
  readonly dir?: string;
  readonly onProgress?: (progress: GgufWriteProgress) => void;
  readonly signal?: AbortSignal;
}

/** `<package root>/models`, unless $TESSERA_MODELS_DIR says otherwise. */
export function modelsDirectory(): string {
  const override = process.env.TESSERA_MODELS_DIR;
  if (override !== undefined && override !== "") return resolve(override);
  // src/gguf/ and dist/gguf/ both sit two levels below the package root.
  return resolve(fileURLToPath(new URL("../../models/", import.meta.url)));
}

/**
 * Where the vocabularies extracted from node-llama-cpp's bundle are cached: one place per installation,
 * whatever folder a model is written to, so a test writing into a temporary folder extracts nothing.
 */
export function vocabularyCacheDirectory(): string {
  return join(modelsDirectory(), ".cache", "vocab");
}

/** File name of a generated preset, e.g. `tiny-f32.gguf` or `llama-3.2-1b-q4_0-seed7.gguf`. */
export function presetFileName(preset: ModelPresetName, type: WritableTensorType, seed: number): string {
  const seedPart = seed === defaultModelSeed ? "" : `-seed${seed}`;
  return `${preset}-${type.toLowerCase()}${seedPart}.gguf`;
}

/** Writes the preset to `path` (temporary file + rename), whether or not it already exists. */
export async function generatePresetModel(
  preset: ModelPresetName,
  path: string,
  options: GenerateModelOptions = {},
): Promise<GgufWriteProgress> {
  const definition: ModelPreset = modelPresets[preset];
  const vocabulary = await loadVocabulary(definition.vocabulary, vocabularyCacheDirectory());
  const type = options.type ?? definition.defaultType;
  const seed = options.seed ?? defaultModelSeed;
  const model = synthesizeLlamaModel({
    name: `${preset} (synthetic, seed ${seed})`,
    hyperParameters: definition.hyperParameters,
    vocabulary,
    type,
    seed,
    ...(definition.initialization !== undefined && { initialization: definition.initialization }),
  });
  // Same folder (so the rename is atomic), and a `.tmp-` prefix that .gitignore already covers in models/.
  const temporary = join(
    dirname(path),
    `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}-${basename(path)}`,
  );
  try {
    const result = await writeGgufFile(temporary, {
      ...model,
      ...(options.onProgress && { onProgress: options.onProgress }),
      ...(options.signal && { signal: options.signal }),
    });
    await rename(temporary, path);
    return result;
  } finally {
    await rm(temporary, { force: true });
  }
}

// `.tmp-<pid>-<random>-<name>.gguf`, as generatePresetModel names them.
const temporaryName = /^\.tmp-(\d+)-.+\.gguf$/;

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0 only checks that the process exists
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const sweptFolders = new Set<string>();

/**
 * Removes the partial models that processes which no longer run left in `dir` (a kill -9, a crash, a
 * Ctrl-C before this cleanup existed). Files of live processes stay: they may be being written. Once
 * per folder and process; returns the names removed.
 */
export async function removeStaleTemporaryModels(dir: string): Promise<string[]> {
  if (sweptFolders.has(dir)) return [];
  sweptFolders.add(dir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const pid = temporaryName.exec(name)?.[1];
    return pid !== undefined && Number(pid) !== process.pid && !processIsAlive(Number(pid));
  });
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
  return stale;
}

const pending = new Map<string, Promise<string>>();

/** A preset `resolveModel` is about to synthesize (write with generated weights), for a caller that asks (the CLI prints it). */
export interface PresetSynthesis {
  readonly preset: ModelPresetName;
  readonly type: WritableTensorType;
  readonly path: string;
}

export interface ResolveModelOptions {
  /** Models folder; defaults to `modelsDirectory()`. */
  readonly dir?: string;
  /** Called once before a missing preset is written (not when it exists or another call is writing it). */
  readonly onGenerate?: (synthesis: PresetSynthesis) => void;
  readonly onProgress?: (progress: GgufWriteProgress) => void;
  /** Stops writing a preset (the partial file is removed); the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

async function ensurePreset(
  preset: ModelPresetName,
  options: GenerateModelOptions & Pick<ResolveModelOptions, "onGenerate">,
): Promise<string> {
  const dir = options.dir ?? modelsDirectory();
  const type = options.type ?? modelPresets[preset].defaultType;
  const path = join(dir, presetFileName(preset, type, options.seed ?? defaultModelSeed));
  await prepareModelsFolder(dir, options.dir === undefined ? "TESSERA_MODELS_DIR" : "the dir option");
  await removeStaleTemporaryModels(dir);
  if (existsSync(path)) return path;
  let generation = pending.get(path);
  if (generation === undefined) {
    generation = (async () => {
      options.onGenerate?.({ preset, type, path });
      await generatePresetModel(preset, path, { ...options, dir, type });
      return path;
    })().finally(() => pending.delete(path));
    pending.set(path, generation);
  }
  return generation;
}

/**
 * Path of the default model: the `tiny` preset in F32 (`models/tiny-f32.gguf`), generated on first use
 * (about a second) and reused afterwards.
 */
export function resolveDefaultModel(options: { dir?: string } = {}): Promise<string> {
  return ensurePreset("tiny", { type: "F32", ...(options.dir !== undefined && { dir: options.dir }) });
}

/** What a model argument names, checked without writing anything. */
export type ModelSpec =
  | { kind: "file"; path: string }
  | { kind: "preset"; name: ModelPresetName; type: WritableTensorType | undefined };

/**
 * Reads a file path, trained preset or preset name (`tiny`, `llama-3.2-1b:q4_0`) without generating it;
 * throws GgufUnknownPresetError for anything else. Lets a command refuse a bad --model before it makes
 * folders or starts work.
 */
export function checkModelSpec(fileOrPreset: string): ModelSpec {
  if (existsSync(fileOrPreset) && statSync(fileOrPreset).isFile())
    return { kind: "file", path: resolve(fileOrPreset) };
  if (isTrainedPresetName(fileOrPreset) && trainedPresetExists(fileOrPreset))
    return { kind: "file", path: trainedPresetPath(fileOrPreset) };
  const [presetName = "", typeText, ...rest] = fileOrPreset.split(":");
  const fail = (problem: string): never => {
    throw new GgufUnknownPresetError({
      requested: fileOrPreset,
      problem,
      presets: modelPresetNames,
      trained: trainedPresetNames,
      types: writableTensorTypes.map((type) => type.toLowerCase()),
    });
  };
  if (!isModelPresetName(presetName) || rest.length > 0) return fail("no such file, and not a known preset");
  const type =
    typeText === undefined
      ? undefined
      : (writableTensorTypeNamed(typeText) ?? fail(`unknown type "${typeText}"`));
  return { kind: "preset", name: presetName, type };
}

/**
 * A path to an existing file, or a preset name with an optional type (`tiny`, `llama-3.2-1b:q4_0`),
 * generated on first use into the models folder.
 */
export async function resolveModel(fileOrPreset: string, options: ResolveModelOptions = {}): Promise<string> {
  const spec = checkModelSpec(fileOrPreset);
  if (spec.kind === "file") return spec.path;
  return ensurePreset(spec.name, {
    ...(spec.type !== undefined && { type: spec.type }),
    ...(options.dir !== undefined && { dir: options.dir }),
    ...(options.onGenerate && { onGenerate: options.onGenerate }),
    ...(options.onProgress && { onProgress: options.onProgress }),
    ...(options.signal && { signal: options.signal }),
  });
}

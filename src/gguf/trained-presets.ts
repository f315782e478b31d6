// Models tessera trained itself (llama.cpp's ggml-opt through `tessera models train`), committed as
// small GGUF files in the package's models/ folder, each with the command that regenerates it. Unlike
// the synthetic presets they are never generated on first use: training takes minutes.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface TrainedPreset {
  readonly name: string;
  readonly fileName: string;
  readonly description: string;
  /** What it was trained on: a built-in checkable task, or text. */
  readonly task: "addition" | "sorting" | "text";
  /** Regenerates the file (from the repository root, after `npm run build`). */
  readonly command: string;
  /**
   * The temperature `tessera bench strategies` samples this model with, when the default (0.9) would hide
   * what the strategies do; measured with `tessera models evaluate` (docs/models.md, "The presets").
   */
  readonly strategyTemperature?: number;
}

export const trainedPresets = {
  "tiny-arith": {
    name: "tiny-arith",
    fileName: "tiny-arith.gguf",
    // Sorting, not addition: 2-digit addition stayed at 0.5-1% held-out exact match in the same budget
    // (docs/models.md, "Training").
    description: "character-level model trained to sort 4 digits (`3142=1234`), a checkable task",
    /** The built-in task it was trained on; its held-out problems are disjoint from the training corpus. */
    task: "sorting",
    command:
      "tessera models train tiny-char --corpus sorting --epochs 12 --lr 3e-3 --warmup 100 --threads 1 --seed 1 --out models/tiny-arith.gguf",
    // At 0.9 one sample is right 87.8% of the time and its errors are mostly the model's own systematic
    // ones, so a vote of 8 gains only 3.5 points. At 1.7 single draws err more often and more diversely
    // (67.5-70.0%) while a vote of 8 still recovers the model's mode (88.8-90.8%, +20.0 to +23.3): the
    // issue's three targets hold at once (one sample 30-90%, majority +10, rejection within 8 ≥ 95%:
    // 98.3-99.3%). 400 held-out problems, sampling seeds 1-3 (docs/models.md, "The presets").
    strategyTemperature: 1.7,
  },
  "tiny-text": {
    name: "tiny-text",
    fileName: "tiny-text.gguf",
    description: "character-level model trained on English text (Debian's fortunes package)",
    task: "text",
    // One run, one cosine schedule over 9 epochs on both cores: 2.496 bits/character on the validation rows
    // (2.532 with each held-out fortune read from BOS) in 14.9 minutes; 6 epochs on one thread gave 2.522.
    command:
      "tessera models train tiny-char --corpus fortunes --epochs 9 --lr 3e-3 --warmup 100 --threads 2 --seed 1 --out models/tiny-text.gguf",
  },
} as const satisfies Record<string, TrainedPreset>;

export type TrainedPresetName = keyof typeof trainedPresets;

export const trainedPresetNames = Object.keys(trainedPresets) as TrainedPresetName[];

export function isTrainedPresetName(name: string): name is TrainedPresetName {
  return Object.hasOwn(trainedPresets, name);
}

/** The committed file of a trained preset: always the package's own models/ folder. */
export function trainedPresetPath(name: TrainedPresetName): string {
  // src/gguf/ and dist/gguf/ both sit two levels below the package root.
  return resolve(fileURLToPath(new URL(`../../models/${trainedPresets[name].fileName}`, import.meta.url)));
}

export function trainedPresetExists(name: TrainedPresetName): boolean {
  return existsSync(trainedPresetPath(name));
}

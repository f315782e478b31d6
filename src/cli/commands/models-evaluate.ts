// `tessera models evaluate`: the figures docs/models.md reports for the trained presets, recomputed.
// addition, sorting: exact-match accuracy on the held-out problems, greedy and at the strategy benchmark's
// temperature for the model (one sample, a majority vote of 8, rejection sampling within 8); text: bits per character on the held-out fortunes (recomputed; the training record's figure beside it) and the
// share of corpus words in a sample.
import { type Command, InvalidArgumentError } from "commander";
import { defaultStrategyTemperature, strategyTemperatureFor } from "../../bench/strategies-benchmark.js";
import { resolveModel } from "../../gguf/default-model.js";
import { readGgufFile } from "../../gguf/gguf-reader.js";
import { evaluateAddition } from "../../training/addition-evaluation.js";
import { additionSplit } from "../../training/addition-task.js";
import { fortunesText, loadFortunes } from "../../training/fortunes-corpus.js";
import { sortingSplit } from "../../training/sorting-task.js";
import { corpusWords, heldOutBitsPerCharacter, sampleText } from "../../training/text-evaluation.js";
import { taskOfCorpusDescription } from "../../training/training-corpus.js";
import { readTrainingRecord } from "../../training/training-record.js";
import { integerArgument, numberArgument } from "../number-arguments.js";

/**
 * The text sample's temperature when none is given: the one docs/models.md reports tiny-text's corpus-word
 * share at (a median of 81.9% over seeds 1-10; greedy decoding loops, and at 0.9 about 62%).
 */
const defaultTextTemperature = 0.3;

interface EvaluateOptions {
  task: string;
  temperature?: number;
  problems: number;
  characters: number;
  seed: number;
  samples: number;
}

async function evaluate(model: string, options: EvaluateOptions): Promise<void> {
  const path = await resolveModel(model);
  const record = readTrainingRecord((await readGgufFile(path)).metadataByKey);
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  // A trained model's figures only mean something on its own task (tiny-arith's loss is not bits per
  // character of English); a GGUF without a record (a random-weight preset) may be measured on any.
  // A corpus described some other way is text: only the built-in tasks are told apart (as before).
  const recordTask = record === undefined ? undefined : (taskOfCorpusDescription(record.corpus) ?? "text");
  if (record !== undefined && recordTask !== options.task) {
    throw new InvalidArgumentError(
      `--task ${options.task} does not match this model's training corpus (${record.corpus.split(/[:(]/)[0]!.trim()}); ` +
        `use --task ${recordTask}`,
    );
  }
  if (options.task === "addition" || options.task === "sorting") {
    const split = options.task === "addition" ? additionSplit() : sortingSplit();
    const problems = split.heldOut.slice(0, options.problems);
    // The strategy benchmark's temperature for this model (tiny-arith's preset records its own).
    const temperature = options.temperature ?? strategyTemperatureFor(model);
    const greedy = await evaluateAddition(path, problems, { temperature: 0 });
    out(
      `greedy: ${greedy.correct}/${greedy.total} = ${(greedy.accuracy * 100).toFixed(1)}% (${greedy.examples.join(", ")})`,
    );
    const sampled = await evaluateAddition(path, problems, {
      temperature,
      seed: options.seed,
      samples: options.samples,
    });
    const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
    out(
      `temperature ${temperature}, one sample each: ${sampled.correct}/${sampled.total} = ${percent(sampled.accuracy)}`,
    );
    if (options.samples > 1) {
      out(
        `majority vote of ${options.samples} samples (no checking): ${percent(sampled.majorityAccuracy)}; ` +
          `rejection sampling with a checking validator, budget ${options.samples}: ${percent(sampled.rejectionAccuracy)}`,
      );
    }
    return;
  }
  // The held-out text is Debian's fortunes: a model trained on a text file of its own is measured on them
  // too (its own held-out lines are in its training record only), so say so beside the figures.
  if (record?.corpus.startsWith("text file ")) {
    out(
      // The description ends in " (sha256 …, N characters), …": the file name itself may hold " (".
      `note: this model was trained on a ${record.corpus.replace(/ \(sha256 [\s\S]*$/, "")}; the figures below are on Debian's fortunes, its own held-out figure is the training record's`,
    );
  }
  const fortunes = await loadFortunes();
  const { training, heldOut } = fortunesText(fortunes, 0.05, 1);
  // Windows no longer than the rows the model was trained on: positions past them were never trained
  // (a 512-token window scored tiny-text 0.11-0.14 bits/character worse than 256).
  const loss = await heldOutBitsPerCharacter(path, heldOut, { window: record?.sequenceLength ?? 256 });
  const windowNote =
    record === undefined
      ? `${loss.window}-token windows (no training record: the default)`
      : `${loss.window}-token windows${loss.window < record.sequenceLength ? ` (the record's ${record.sequenceLength}, capped at the model's context)` : ", the training sequence length"}`;
  out(
    `held-out fortunes, each read from BOS: ${loss.bitsPerCharacter.toFixed(3)} bits/character ` +
      `(${loss.documents} fortunes, ${loss.characters} characters, ${windowNote}; recomputed from the model's log-probabilities)`,
  );
  if (record !== undefined) {
    out(
      `training record (ggml-opt's validation rows of ${record.sequenceLength} tokens): ${(record.validationLoss / Math.LN2).toFixed(3)} bits/character (random start ${(record.initialValidationLoss / Math.LN2).toFixed(3)})`,
    );
  }
  const temperature = options.temperature ?? defaultTextTemperature;
  const sample = await sampleText(path, corpusWords(training), {
    characters: options.characters,
    temperature,
    seed: options.seed,
  });
  out(
    `sample (${options.characters} characters, temperature ${temperature}, seed ${options.seed}):\n${sample.text}`,
  );
  out(
    `${sample.knownWords}/${sample.words} words are corpus words (${(sample.knownShare * 100).toFixed(1)}%)`,
  );
}

export function registerModelsEvaluateCommand(models: Command): void {
  models
    .command("evaluate")
    .description(
      "a trained model's figures, recomputed: held-out addition or sorting accuracy, or text bits/character on the held-out fortunes and the corpus words in a sample",
    )
    .argument("<model>", "a trained preset (tiny-arith, tiny-text) or GGUF file")
    .requiredOption("--task <task>", "addition, sorting or text", (text: string) => {
      if (text !== "addition" && text !== "sorting" && text !== "text")
        throw new InvalidArgumentError("Expected addition, sorting or text.");
      return text;
    })
    .option(
      "--temperature <t>",
      `sampling temperature (default: addition, sorting: the strategy benchmark's for the model, ${defaultStrategyTemperature} unless its preset says otherwise; text: ${defaultTextTemperature})`,
      numberArgument(0, 10),
    )
    .option("--problems <n>", "held-out addition or sorting problems to use", integerArgument(1, 400), 400)
    .option("--characters <n>", "characters of text to sample", integerArgument(1, 100000), 500)
    .option("--seed <n>", "sampling seed", integerArgument(0, 0xffffffff), 1)
    .option(
      "--samples <n>",
      "addition, sorting: draws per problem for the majority vote and rejection sampling figures",
      integerArgument(1, 64),
      8,
    )
    .action(evaluate);
}

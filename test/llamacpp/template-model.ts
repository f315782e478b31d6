// Writes the tiny model with a chosen `tokenizer.chat_template` (or none) into a folder, with the
// src/gguf/ writer: the way a malicious model file reaches a user.
import { join } from "node:path";
import { vocabularyCacheDirectory } from "../../src/gguf/default-model.js";
import { gguf } from "../../src/gguf/gguf-value.js";
import { writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { synthesizeLlamaModel } from "../../src/gguf/llama-synthesizer.js";
import { modelPresets } from "../../src/gguf/model-presets.js";
import { loadVocabulary } from "../../src/gguf/vocabulary.js";

export async function writeModelWithChatTemplate(
  folder: string,
  name: string,
  chatTemplate: string | null,
  options: { nanOutput?: boolean } = {},
): Promise<string> {
  const preset = modelPresets.tiny;
  const vocabulary = await loadVocabulary(preset.vocabulary, vocabularyCacheDirectory());
  const model = synthesizeLlamaModel({
    name,
    hyperParameters: preset.hyperParameters,
    vocabulary,
    type: "F32",
    seed: 1,
  });
  const metadata = model.metadata.filter((entry) => entry.key !== "tokenizer.chat_template");
  if (chatTemplate !== null)
    metadata.push({ key: "tokenizer.chat_template", value: gguf.string(chatTemplate) });
  // A broken model: an LM head of NaN makes every logit NaN.
  const tensors = options.nanOutput
    ? model.tensors.map((tensor) =>
        tensor.name === "output.weight"
          ? { ...tensor, data: () => nanBytes(tensor.shape.reduce((product, size) => product * size, 1)) }
          : tensor,
      )
    : model.tensors;
  const path = join(folder, `${name}.gguf`);
  await writeGgufFile(path, { metadata, tensors });
  return path;
}

function* nanBytes(elements: number): Generator<Uint8Array> {
  yield new Uint8Array(new Float32Array(elements).fill(Number.NaN).buffer);
}

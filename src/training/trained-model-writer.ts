// llama_model_save_to_file writes the trained tensors with metadata rebuilt from llama.cpp's in-memory
// hyper-parameters: it drops the chat template and tessera's keys, and stores the training sequence
// length as the context length. So the file tessera keeps takes the starting model's metadata, adds
// the training record, and takes only the tensors from llama.cpp's file.
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { GgufTensorInfo } from "../gguf/gguf-file-info.js";
import { readGgufFile } from "../gguf/gguf-reader.js";
import { type GgufMetadataEntry, gguf } from "../gguf/gguf-value.js";
import { type GgufTensorSource, writeGgufFile } from "../gguf/gguf-writer.js";
import { TrainingError } from "./errors/training-error.js";
import { trainingRecordPrefix } from "./training-record.js";

const chunkBytes = 1 << 20;

function tensorData(path: string, tensor: GgufTensorInfo): () => AsyncIterable<Uint8Array> {
  return async function* read() {
    const handle = await open(path, "r");
    try {
      const buffer = new Uint8Array(chunkBytes);
      for (let done = 0; done < tensor.byteSize; ) {
        const length = Math.min(chunkBytes, tensor.byteSize - done);
        const { bytesRead } = await handle.read(buffer, 0, length, tensor.fileOffset + done);
        if (bytesRead === 0) throw new TrainingError(`${path} ends inside tensor ${tensor.name}`);
        yield buffer.subarray(0, bytesRead);
        done += bytesRead;
      }
    } finally {
      await handle.close();
    }
  };
}

/** Where the model is written before its rename to `outputPath` (for a caller that must clean up synchronously). */
export function trainedModelTemporaryPath(outputPath: string): string {
  return join(dirname(outputPath), `.tmp-${process.pid}-${basename(outputPath)}`);
}

export async function writeTrainedModel(options: {
  startPath: string;
  trainedPath: string;
  outputPath: string;
  name: string;
  record: readonly GgufMetadataEntry[];
  chatTemplate?: string;
}): Promise<void> {
  const start = await readGgufFile(options.startPath);
  const trained = await readGgufFile(options.trainedPath);
  const startNames = new Set(start.tensors.map((tensor) => tensor.name));
  const missing = trained.tensors.filter((tensor) => !startNames.has(tensor.name));
  if (missing.length > 0 || trained.tensors.length !== start.tensors.length) {
    throw new TrainingError(
      `llama.cpp saved tensors that do not match the starting model (${missing.map((tensor) => tensor.name).join(", ") || "different count"})`,
    );
  }
  // The starting model's order, so a trained file lines up with its start tensor by tensor.
  const byName = new Map(trained.tensors.map((tensor) => [tensor.name, tensor]));
  const tensors: GgufTensorSource[] = start.tensors.map((startTensor) => {
    const tensor = byName.get(startTensor.name)!;
    return {
      name: tensor.name,
      shape: tensor.shape,
      type: tensor.type,
      data: tensorData(options.trainedPath, tensor),
    } as GgufTensorSource;
  });
  const metadata: GgufMetadataEntry[] = start.metadata
    .filter((entry) => !entry.key.startsWith(trainingRecordPrefix))
    .map((entry) => {
      if (entry.key === "general.name") return { key: entry.key, value: gguf.string(options.name) };
      // A task model's template renders a conversation as the raw task prompt it was trained on.
      if (entry.key === "tokenizer.chat_template" && options.chatTemplate !== undefined) {
        return { key: entry.key, value: gguf.string(options.chatTemplate) };
      }
      return entry;
    });
  metadata.push(...options.record);
  const temporary = trainedModelTemporaryPath(options.outputPath);
  try {
    await writeGgufFile(temporary, { metadata, tensors });
    await rename(temporary, options.outputPath);
  } finally {
    await rm(temporary, { force: true });
  }
}

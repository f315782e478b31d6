// Public names of the GGUF layer.
export {
  generatePresetModel,
  modelsDirectory,
  presetFileName,
  resolveDefaultModel,
  resolveModel,
} from "./default-model.js";
export { GgufError } from "./errors/gguf-error.js";
export { GgufHeaderTooLargeError } from "./errors/gguf-header-too-large-error.js";
export { GgufInvalidHeaderError } from "./errors/gguf-invalid-header-error.js";
export { GgufInvalidMetadataError } from "./errors/gguf-invalid-metadata-error.js";
export { GgufInvalidTensorInfoError } from "./errors/gguf-invalid-tensor-info-error.js";
export { GgufLengthExceedsFileError } from "./errors/gguf-length-exceeds-file-error.js";
export { GgufModelMismatchError } from "./errors/gguf-model-mismatch-error.js";
export { GgufModelsFolderError } from "./errors/gguf-models-folder-error.js";
export { GgufTruncatedError } from "./errors/gguf-truncated-error.js";
export { GgufUnknownPresetError } from "./errors/gguf-unknown-preset-error.js";
export { GgufVocabUnavailableError } from "./errors/gguf-vocab-unavailable-error.js";
export { GgufWriteError } from "./errors/gguf-write-error.js";
export { float16ToFloat32, float32ToFloat16 } from "./float16.js";
export { type GgmlTypeName, ggmlTypes } from "./ggml-type.js";
export type { GgufFileInfo, GgufTensorInfo } from "./gguf-file-info.js";
export { encodeGgufHeader, type GgufLayout, type GgufTensorDescription } from "./gguf-header-encoder.js";
export { parseGgufBytes, type ReadGgufOptions, readGgufFile, readGgufTensorBytes } from "./gguf-reader.js";
export {
  type GgufArrayValue,
  type GgufMetadataEntry,
  type GgufValue,
  type GgufValueTypeName,
  gguf,
  ggufPlainValue,
} from "./gguf-value.js";
export {
  type GgufTensorSource,
  type GgufWriteOptions,
  type GgufWriteProgress,
  writeGgufFile,
} from "./gguf-writer.js";
export { validateLlamaModel } from "./llama-model-validation.js";
export { type LlamaHyperParameters, type LlamaModelSpec, synthesizeLlamaModel } from "./llama-synthesizer.js";
export { type ModelPreset, type ModelPresetName, modelPresetNames, modelPresets } from "./model-presets.js";
export { dequantizeQ4_0, quantizeQ4_0 } from "./quantize-q4-0.js";
export { dequantizeQ8_0, quantizeQ8_0 } from "./quantize-q8-0.js";
export {
  decodeTensorValues,
  encodeTensorValues,
  type WritableTensorType,
  writableTensorTypes,
} from "./tensor-encoding.js";
export { loadVocabulary, type Vocabulary } from "./vocabulary.js";

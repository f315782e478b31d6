// Public API of tessera. Every public name is listed explicitly, one block per layer.

// --- core ---

// --- messages ---

// --- formatting ---

// --- gguf ---
export {
  decodeTensorValues,
  dequantizeQ4_0,
  dequantizeQ8_0,
  encodeGgufHeader,
  encodeTensorValues,
  float16ToFloat32,
  float32ToFloat16,
  type GgmlTypeName,
  GgufError,
  type GgufFileInfo,
  GgufInvalidHeaderError,
  GgufInvalidMetadataError,
  GgufInvalidTensorInfoError,
  type GgufLayout,
  GgufLengthExceedsFileError,
  type GgufMetadataEntry,
  GgufModelMismatchError,
  type GgufTensorDescription,
  type GgufTensorInfo,
  type GgufTensorSource,
  GgufTruncatedError,
  GgufUnknownPresetError,
  type GgufValue,
  GgufVocabUnavailableError,
  GgufWriteError,
  type GgufWriteOptions,
  type GgufWriteProgress,
  generatePresetModel,
  gguf,
  ggufPlainValue,
  type LlamaHyperParameters,
  loadVocabulary,
  type ModelPresetName,
  modelPresetNames,
  modelPresets,
  modelsDirectory,
  parseGgufBytes,
  quantizeQ4_0,
  quantizeQ8_0,
  readGgufFile,
  readGgufTensorBytes,
  resolveDefaultModel,
  resolveModel,
  synthesizeLlamaModel,
  type WritableTensorType,
  writableTensorTypes,
  writeGgufFile,
} from "./gguf/index.js";

// --- backends/llamacpp ---

// --- backends/openai ---

// --- stdlib ---

// --- server ---

// What must be refused before a file reaches llama.cpp: each rule prevents a crash (an abort or an
// uncaught C++ exception inside llama.cpp, which ends the whole process) that a mutated file caused in
// the reliability fuzzer. The llama.cpp loader (`loadLlamaModel`) runs these on the header it reads
// with our own reader; `src/reliability/` uses them for its pre-load validation. Only the parsed header
// is looked at, so the cost does not grow with the tensor data.
import type { GgufFileInfo } from "./gguf-file-info.js";
import { asLlamaCppReadsIt, cStringOf } from "./llama-cpp-view.js";

/**
 * The text llama.cpp files token `id` under: its C string (llama-vocab.cpp rebuilds each text with
 * `std::string(gguf_get_arr_str(...))`, which stops at a NUL byte), and "[EMPTY_<id>]" when that is empty.
 */
export function llamaCppTokenText(text: string, id: number): string {
  const cut = cStringOf(text);
  return cut === "" ? `[EMPTY_${id}]` : cut;
}

/**
 * llama.cpp maps token text to id and asserts that no two tokens share a text
 * (llama-vocab.cpp: `GGML_ASSERT(id_to_token.size() == token_to_id.size())`, an abort). Texts are
 * compared as llama.cpp keys them (`llamaCppTokenText`): "a" and "a\0b" collide, and so do an empty
 * token, or one starting with NUL, and a real token "[EMPTY_<id>]".
 */
export function findDuplicateTokens(info: GgufFileInfo): string[] {
  const tokens = info.metadataByKey.get("tokenizer.ggml.tokens");
  if (tokens?.type !== "array" || tokens.itemType !== "string") return [];
  const firstIdByText = new Map<string, number>();
  const problems: string[] = [];
  tokens.values.forEach((value, id) => {
    const text = llamaCppTokenText(value as string, id);
    const first = firstIdByText.get(text);
    if (first === undefined) firstIdByText.set(text, id);
    else if (problems.length < 5) {
      problems.push(
        `tokens ${first} and ${id} have the same text ${JSON.stringify(text)} as llama.cpp reads them (up to the first NUL byte; an empty text is "[EMPTY_<id>]"): make every token text unique and free of NUL bytes`,
      );
    }
  });
  return problems;
}

// Integer and F64 tensors: no CPU kernel takes them as weights (get_rows finds no backend,
// `GGML_ASSERT(*cur_backend_id != -1)`; binary ops `GGML_ABORT("unsupported types")`).
const nonWeightTypes: ReadonlySet<string> = new Set(["I8", "I16", "I32", "I64", "F64"]);

/**
 * Tensor types llama.cpp would abort on at the first decode: integer or F64 weights, and 1-D tensors
 * (norm weights, multiplied into F32 activations) that are not F32.
 */
export function findUnusableTensorTypes(info: GgufFileInfo): string[] {
  const problems: string[] = [];
  for (const tensor of info.tensors) {
    if (nonWeightTypes.has(tensor.type)) problems.push(`tensor ${tensor.name} has type ${tensor.type}`);
    else if (tensor.shape.length === 1 && tensor.type !== "F32") {
      problems.push(`1-D tensor ${tensor.name} has type ${tensor.type}, not F32`);
    }
  }
  return problems.slice(0, 5);
}

/** Norm epsilons that are NaN or negative abort the first decode (`GGML_ASSERT(eps >= 0.0f)`). */
export function findBadEpsilons(info: GgufFileInfo): string[] {
  const problems: string[] = [];
  for (const { key, value } of info.metadata) {
    if (!key.endsWith("_epsilon")) continue;
    if (
      (value.type === "float32" || value.type === "float64") &&
      !(value.value >= 0 && Number.isFinite(value.value))
    ) {
      problems.push(`${key} is ${value.value}, not a finite number >= 0`);
    }
  }
  return problems;
}

function integerValue(info: GgufFileInfo, key: string): number | undefined {
  const value = info.metadataByKey.get(key);
  if (value === undefined || value.type === "array" || value.type === "string" || value.type === "bool")
    return undefined;
  return Number(value.value);
}

/**
 * Expert counts llama.cpp asserts on while reading hyper-parameters (llama-model.cpp: at most 1024
 * experts, used <= count, used > 0 when there are experts, 0 when there are none, groups < count).
 */
export function findBadExpertCounts(info: GgufFileInfo): string[] {
  const architecture = info.metadataByKey.get("general.architecture");
  if (architecture?.type !== "string") return [];
  const prefix = architecture.value;
  const experts = integerValue(info, `${prefix}.expert_count`) ?? 0;
  const used = integerValue(info, `${prefix}.expert_used_count`) ?? 0;
  const groups = integerValue(info, `${prefix}.expert_group_count`) ?? 0;
  const problems: string[] = [];
  if (experts > 1024) problems.push(`${prefix}.expert_count ${experts} is above llama.cpp's 1024`);
  if (used > experts) problems.push(`${prefix}.expert_used_count ${used} exceeds expert_count ${experts}`);
  if (experts > 0 && used === 0)
    problems.push(`${prefix}.expert_count is ${experts} but expert_used_count is 0`);
  if (experts > 0 && groups >= experts)
    problems.push(`${prefix}.expert_group_count ${groups} >= expert_count`);
  if (experts === 0 && groups !== 0) problems.push(`${prefix}.expert_group_count ${groups} without experts`);
  return problems;
}

// Tokenizers whose token_to_byte handles byte tokens; any other aborts on one
// (llama-vocab.cpp:3163 `GGML_ABORT("fatal error")`, e.g. "bert" over a SentencePiece vocabulary).
const byteTokenizers: ReadonlySet<string> = new Set(["llama", "gpt2", "t5"]);

const spmByteTokens = Array.from(
  { length: 256 },
  (_, byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`,
);

/**
 * Tokenizers llama.cpp accepts at load but aborts on at the first tokenize: "none" and "no_vocab"
 * (`GGML_ASSERT(tokenizer && "Tokenizer not initialized...")`), byte tokens under a tokenizer that cannot
 * decode them, and a SentencePiece ("llama") vocabulary without its 256 byte tokens
 * (`token_to_id.at()` throws std::out_of_range through the addon: terminate).
 */
export function findUnusableTokenizer(info: GgufFileInfo): string[] {
  const model = info.metadataByKey.get("tokenizer.ggml.model");
  const name = model?.type === "string" ? model.value : undefined;
  if (name === undefined) return ["tokenizer.ggml.model is missing: the model has no tokenizer"];
  if (name === "none" || name === "no_vocab")
    return [`tokenizer.ggml.model is "${name}": the model cannot tokenize text`];
  const types = info.metadataByKey.get("tokenizer.ggml.token_type");
  const byteTokenType = 6;
  if (!byteTokenizers.has(name) && types?.type === "array" && types.values.includes(byteTokenType)) {
    return [
      `tokenizer.ggml.model "${name}" cannot decode byte tokens (token type 6), and the vocabulary has some`,
    ];
  }
  if (name !== "llama") return [];
  const tokens = info.metadataByKey.get("tokenizer.ggml.tokens");
  const present = new Set(tokens?.type === "array" ? (tokens.values as unknown[]) : []);
  const missing = spmByteTokens.filter((token) => !present.has(token));
  return missing.length > 0
    ? [`the SentencePiece vocabulary lacks ${missing.length} of the 256 byte tokens (e.g. ${missing[0]})`]
    : [];
}

/**
 * Block counts llama.cpp asserts on while reading hyper-parameters (1..512 layers, llama-model.cpp
 * `GGML_ASSERT(hparams.n_layer_all > 0 && hparams.n_layer_all <= LLAMA_MAX_LAYERS)`), and a llama block
 * count the tensor table cannot back (9 tensors per block). Checked before `validateLlamaModel`, which
 * lists the expected tensors per block and so would loop 2^31 times for `block_count = 0x7fffffff`.
 */
export function findImpossibleBlockCount(info: GgufFileInfo): string[] {
  const architecture = info.metadataByKey.get("general.architecture");
  if (architecture?.type !== "string") return [];
  const key = `${architecture.value}.block_count`;
  const blocks = integerValue(info, key);
  if (blocks === undefined) return [];
  if (blocks < 1 || blocks > 512) return [`${key} is ${blocks}, llama.cpp accepts 1 to 512`];
  const nextPredictLayers = integerValue(info, `${architecture.value}.nextn_predict_layers`) ?? 0;
  if (nextPredictLayers > blocks) return [`${architecture.value}.nextn_predict_layers exceeds ${key}`];
  const tensorsPerBlock = 9;
  return architecture.value === "llama" && blocks * tensorsPerBlock > info.tensors.length
    ? [`${key} ${blocks} needs ${blocks * tensorsPerBlock} tensors, the file has ${info.tensors.length}`]
    : [];
}

// llama-model.cpp's LLAMA_ROPE_SCALING_TYPES: any other name asserts at load
// (`GGML_ASSERT(hparams.rope_scaling_type_train != LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED)`).
const ropeScalingTypes: ReadonlySet<string> = new Set(["none", "linear", "yarn", "longrope"]);

/** A `<arch>.rope.scaling.type` string llama.cpp does not know aborts the load. */
export function findUnknownRopeScaling(info: GgufFileInfo): string[] {
  const architecture = info.metadataByKey.get("general.architecture");
  if (architecture?.type !== "string") return [];
  const key = `${architecture.value}.rope.scaling.type`;
  const value = info.metadataByKey.get(key);
  return value?.type === "string" && !ropeScalingTypes.has(value.value)
    ? [`${key} is ${JSON.stringify(value.value)}; llama.cpp knows only ${[...ropeScalingTypes].join(", ")}`]
    : [];
}

/**
 * Every problem above in one list (empty when the file is safe to hand to llama.cpp as far as the
 * fuzzer knows). The loader does `findLlamaCppHazards(await readGgufFile(path))` before llama.cpp sees the file.
 */
export function findLlamaCppHazards(file: GgufFileInfo): string[] {
  // Every rule reads keys, strings and token texts as llama.cpp does (cut at NUL, first key wins).
  const info = asLlamaCppReadsIt(file);
  return [
    ...findDuplicateTokens(info),
    ...findUnusableTensorTypes(info),
    ...findBadEpsilons(info),
    ...findImpossibleBlockCount(info),
    ...findBadExpertCounts(info),
    ...findUnusableTokenizer(info),
    ...findUnknownRopeScaling(info),
  ];
}

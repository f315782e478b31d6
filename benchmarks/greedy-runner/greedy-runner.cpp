// The honest limit of a local stack on node-llama-cpp's prebuilt llama.cpp: the least a program can do to
// stream greedy tokens. Load the model, tokenize, decode the prompt, then decode + arg-max + detokenize
// one token at a time, with no queue, no thread hand-off and no JavaScript. `tessera bench throughput`
// and `bench ttfb` run it as a row beside tessera, node-llama-cpp and llama-bench.
//
// Built by benchmarks/greedy-runner/build.mjs against the same libllama/libggml the addon loads.
//
// Modes (all print JSON on stdout, one object per line):
//   greedy  --prompt-file F --tokens N --reps R   first token and decode speed, R repetitions
//   tg      --tokens N --reps R [--depth D]       llama-bench's tg test (decode random tokens, no logits
//                                                 read) on these libraries, after D cached cells (its -d)
//   pp      --tokens N --reps R [--depth D]       llama-bench's pp test: one N-token batch (in n_batch chunks)
//                                                 after D cached cells; prints prompt tokens/s
//   serve                                          one request per stdin line: {"prompt": "...", "maxTokens": N}
//                                                  answered with the pieces and their times (ms, own clock),
//                                                  or {"tg": N, "depth": D} answered with {"tokensPerSecond"}
// Common: --model PATH --libs FOLDER (ggml backends) --threads T --context C --batch B [--chat]
//         [--flash-attn auto|on|off] (llama.cpp's default is auto, as tessera's addon leaves it)
//         [--huge-pages on|off] (default on: the addon's advice, native/src/huge-pages.h, after the load and
//         the context creation, as tessera's loadModel does by default; off leaves llama.cpp's allocations)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "huge-pages.h"
#include "llama.h"

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Options {
  std::string mode = "greedy";
  std::string model;
  std::string libs;
  std::string promptFile;
  int threads = 1;
  int tokens = 128;
  int reps = 5;
  int context = 0;
  int batch = 0;
  int depth = 0;
  std::string flashAttention = "auto";
  std::string hugePages = "on";
  bool chat = false;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "greedy-runner: %s\n", message.c_str());
  std::exit(1);
}

Options parseOptions(int argc, char** argv) {
  Options options;
  for (int index = 1; index < argc; index++) {
    const std::string name = argv[index];
    if (name == "--chat") {
      options.chat = true;
      continue;
    }
    if (index + 1 >= argc) fail("option " + name + " needs a value");
    const std::string value = argv[++index];
    if (name == "--mode") options.mode = value;
    else if (name == "--model") options.model = value;
    else if (name == "--libs") options.libs = value;
    else if (name == "--prompt-file") options.promptFile = value;
    else if (name == "--threads") options.threads = std::atoi(value.c_str());
    else if (name == "--tokens") options.tokens = std::atoi(value.c_str());
    else if (name == "--reps") options.reps = std::atoi(value.c_str());
    else if (name == "--context") options.context = std::atoi(value.c_str());
    else if (name == "--batch") options.batch = std::atoi(value.c_str());
    else if (name == "--depth") options.depth = std::atoi(value.c_str());
    else if (name == "--flash-attn") options.flashAttention = value;
    else if (name == "--huge-pages") options.hugePages = value;
    else fail("unknown option " + name);
  }
  if (options.model.empty()) fail("--model is required");
  if (options.hugePages != "on" && options.hugePages != "off") fail("--huge-pages must be on or off");
  if (options.threads < 1 || options.tokens < 1 || options.reps < 1) fail("--threads, --tokens and --reps must be >= 1");
  return options;
}

std::string readFile(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) fail("cannot read " + path);
  std::string text;
  char buffer[65536];
  size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, read);
  std::fclose(file);
  return text;
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char character : text) {
    switch (character) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (character < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", character);
          out += escaped;
        } else {
          out += static_cast<char>(character);
        }
    }
  }
  return out + "\"";
}

// The minimal JSON reader for one request line: the string after "prompt": and the number after "maxTokens":.
bool parseRequest(const std::string& line, std::string& prompt, int& maxTokens) {
  const size_t key = line.find("\"prompt\"");
  if (key == std::string::npos) return false;
  size_t at = line.find('"', line.find(':', key) + 1);
  if (at == std::string::npos) return false;
  prompt.clear();
  for (at++; at < line.size() && line[at] != '"'; at++) {
    if (line[at] != '\\') {
      prompt += line[at];
      continue;
    }
    const char escaped = line[++at];
    if (escaped == 'n') prompt += '\n';
    else if (escaped == 't') prompt += '\t';
    else if (escaped == 'r') prompt += '\r';
    else if (escaped == 'u') {
      const unsigned code = static_cast<unsigned>(std::strtoul(line.substr(at + 1, 4).c_str(), nullptr, 16));
      at += 4;
      if (code < 0x80) prompt += static_cast<char>(code);
      else if (code < 0x800) {
        prompt += static_cast<char>(0xC0 | (code >> 6));
        prompt += static_cast<char>(0x80 | (code & 0x3F));
      } else {
        prompt += static_cast<char>(0xE0 | (code >> 12));
        prompt += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        prompt += static_cast<char>(0x80 | (code & 0x3F));
      }
    } else prompt += escaped;
  }
  const size_t tokensKey = line.find("\"maxTokens\"");
  if (tokensKey != std::string::npos) maxTokens = std::atoi(line.c_str() + line.find(':', tokensKey) + 1);
  return true;
}

struct Runner {
  llama_model* model = nullptr;
  llama_context* context = nullptr;
  const llama_vocab* vocab = nullptr;
  int vocabularySize = 0;
  bool chat = false;

  std::string render(const std::string& text) const {
    if (!chat) return text;
    const char* tmpl = llama_model_chat_template(model, nullptr);
    if (tmpl == nullptr) return text;
    llama_chat_message message{"user", text.c_str()};
    std::vector<char> buffer(text.size() * 2 + 1024);
    int32_t length = llama_chat_apply_template(tmpl, &message, 1, true, buffer.data(), static_cast<int32_t>(buffer.size()));
    if (length > static_cast<int32_t>(buffer.size())) {
      buffer.resize(length);
      length = llama_chat_apply_template(tmpl, &message, 1, true, buffer.data(), length);
    }
    // A template llama.cpp's built-in list does not know: bare text, as the caller is told in the JSON.
    return length < 0 ? text : std::string(buffer.data(), length);
  }

  std::vector<llama_token> tokenize(const std::string& text) const {
    std::vector<llama_token> tokens(text.size() + 8);
    int32_t count = llama_tokenize(vocab, text.c_str(), static_cast<int32_t>(text.size()), tokens.data(),
                                   static_cast<int32_t>(tokens.size()), true, true);
    if (count < 0) {
      tokens.resize(-count);
      count = llama_tokenize(vocab, text.c_str(), static_cast<int32_t>(text.size()), tokens.data(),
                             static_cast<int32_t>(tokens.size()), true, true);
    }
    tokens.resize(count);
    return tokens;
  }

  llama_token argmax() const {
    const float* logits = llama_get_logits_ith(context, -1);
    return static_cast<llama_token>(std::max_element(logits, logits + vocabularySize) - logits);
  }

  std::string piece(llama_token token) const {
    char buffer[256];
    const int32_t length = llama_token_to_piece(vocab, token, buffer, sizeof buffer, 0, false);
    return length > 0 ? std::string(buffer, length) : std::string();
  }

  void clear() const { llama_memory_clear(llama_get_memory(context), true); }

  int32_t batchSize = 512;

  // In n_batch chunks, as tessera's decode engine feeds a long prompt.
  void decode(llama_token* tokens, int32_t count) const {
    for (int32_t at = 0; at < count; at += batchSize) {
      const int32_t chunk = std::min(batchSize, count - at);
      if (llama_decode(context, llama_batch_get_one(tokens + at, chunk)) != 0) fail("llama_decode failed");
    }
  }
};

// llama-bench's pp test: `tokens` random tokens in one batch (n_batch chunks) after `depth` random cells.
double promptProcessing(const Runner& runner, int tokens, int depth) {
  runner.clear();
  std::vector<llama_token> filler(depth + tokens);
  for (llama_token& token : filler) token = std::rand() % runner.vocabularySize;
  if (depth > 0) runner.decode(filler.data(), depth);
  llama_synchronize(runner.context);
  const Clock::time_point start = Clock::now();
  runner.decode(filler.data() + depth, tokens);
  llama_synchronize(runner.context);
  return tokens * 1000.0 / millisecondsSince(start);
}

// One greedy generation: times (ms from the start, before rendering) of every piece.
struct Generation {
  uint32_t textHash = 0;  // FNV-1a of the request's text, so a caller can check what the runner read
  int promptTokens = 0;
  double templateMs = 0;
  double tokenizeMs = 0;
  double firstTokenMs = 0;
  std::vector<double> times;
  std::vector<std::string> pieces;
};

Generation generate(const Runner& runner, const std::string& text, int maxTokens) {
  Generation result;
  result.textHash = 2166136261u;
  for (unsigned char character : text) result.textHash = (result.textHash ^ character) * 16777619u;
  runner.clear();
  const Clock::time_point start = Clock::now();
  const std::string prompt = runner.render(text);
  result.templateMs = millisecondsSince(start);
  std::vector<llama_token> tokens = runner.tokenize(prompt);
  result.tokenizeMs = millisecondsSince(start);
  result.promptTokens = static_cast<int>(tokens.size());
  runner.decode(tokens.data(), static_cast<int32_t>(tokens.size()));
  for (int index = 0; index < maxTokens; index++) {
    llama_token token = runner.argmax();
    result.pieces.push_back(runner.piece(token));
    result.times.push_back(millisecondsSince(start));
    if (index + 1 < maxTokens) runner.decode(&token, 1);
  }
  result.firstTokenMs = result.times.front();
  return result;
}

void printGeneration(const Generation& generation, bool withPieces) {
  const size_t count = generation.times.size();
  const double decodeSpan = count > 1 ? generation.times.back() - generation.times.front() : 0;
  std::printf("{\"textHash\":%u,\"promptTokens\":%d,\"templateMs\":%.4f,\"tokenizeMs\":%.4f,\"firstTokenMs\":%.4f,"
              "\"generatedTokens\":%zu,\"decodeTokensPerSecond\":%.3f",
              generation.textHash, generation.promptTokens, generation.templateMs, generation.tokenizeMs, generation.firstTokenMs, count,
              decodeSpan > 0 ? (count - 1) * 1000.0 / decodeSpan : 0.0);
  if (withPieces) {
    std::printf(",\"times\":[");
    for (size_t index = 0; index < count; index++) std::printf("%s%.4f", index ? "," : "", generation.times[index]);
    std::printf("],\"pieces\":[");
    for (size_t index = 0; index < count; index++)
      std::printf("%s%s", index ? "," : "", jsonString(generation.pieces[index]).c_str());
    std::printf("]");
  }
  std::printf("}\n");
  std::fflush(stdout);
}

// llama-bench's test_gen, to the letter: random tokens, one per decode, no logits read; after `depth`
// random cells decoded untimed, as llama-bench's -d (tessera decodes after its prompt, not from empty).
double tokenGeneration(const Runner& runner, int tokens, int depth) {
  runner.clear();
  if (depth > 0) {
    std::vector<llama_token> filler(depth);
    for (llama_token& token : filler) token = std::rand() % runner.vocabularySize;
    runner.decode(filler.data(), depth);
  }
  llama_token token = llama_vocab_get_add_bos(runner.vocab) ? llama_vocab_bos(runner.vocab)
                                                           : std::rand() % runner.vocabularySize;
  const Clock::time_point start = Clock::now();
  for (int index = 0; index < tokens; index++) {
    runner.decode(&token, 1);
    llama_synchronize(runner.context);
    token = std::rand() % runner.vocabularySize;
  }
  return tokens * 1000.0 / millisecondsSince(start);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parseOptions(argc, argv);
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  if (!options.libs.empty()) ggml_backend_load_all_from_path(options.libs.c_str());
  else ggml_backend_load_all();
  llama_backend_init();

  Runner runner;
  runner.chat = options.chat;
  llama_model_params modelParams = llama_model_default_params();
  modelParams.n_gpu_layers = 0;
  const bool hugePages = options.hugePages == "on";
  tessera::MappingSnapshot mappedBefore;
  if (hugePages) {
    mappedBefore = tessera::anonymousMappings();
    // As the addon's load: advised at the first progress call, when the weights' buffers exist and are
    // still empty, so the repack's writes fault in huge pages directly.
    static bool advisedEarly = false;
    modelParams.progress_callback = [](float, void* before) {
      if (!advisedEarly) {
        advisedEarly = true;
        tessera::adviseHugePages(*static_cast<tessera::MappingSnapshot*>(before),
                                 tessera::kHugePageMinimumBytes, false);
      }
      return true;
    };
    modelParams.progress_callback_user_data = &mappedBefore;
  }
  runner.model = llama_model_load_from_file(options.model.c_str(), modelParams);
  if (runner.model == nullptr) fail("cannot load " + options.model);
  if (hugePages) tessera::adviseHugePages(mappedBefore, tessera::kHugePageMinimumBytes);
  runner.vocab = llama_model_get_vocab(runner.model);
  runner.vocabularySize = llama_vocab_n_tokens(runner.vocab);

  // The same context settings as tessera's addon (native/src/addon-context.cpp): n_ubatch ≤ 512, no perf.
  llama_context_params contextParams = llama_context_default_params();
  contextParams.n_ctx = options.context > 0 ? options.context : 4096;
  contextParams.n_batch = options.batch > 0 ? options.batch : 512;
  contextParams.n_ubatch = std::min<uint32_t>(contextParams.n_batch, 512);
  contextParams.n_seq_max = 1;
  contextParams.n_threads = options.threads;
  contextParams.n_threads_batch = options.threads;
  contextParams.no_perf = true;
  if (options.flashAttention == "on") contextParams.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_ENABLED;
  else if (options.flashAttention == "off") contextParams.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  else if (options.flashAttention != "auto") fail("--flash-attn must be auto, on or off");
  runner.batchSize = static_cast<int32_t>(contextParams.n_batch);
  if (hugePages) mappedBefore = tessera::anonymousMappings();
  runner.context = llama_init_from_model(runner.model, contextParams);
  if (runner.context == nullptr) fail("cannot create a context");
  if (hugePages) tessera::adviseHugePages(mappedBefore, tessera::kHugePageMinimumBytes);

  if (options.mode == "tg") {
    tokenGeneration(runner, 1, 0);  // warm-up, as llama-bench
    std::printf("{\"mode\":\"tg\",\"threads\":%d,\"tokens\":%d,\"depth\":%d,\"samples\":[", options.threads,
                options.tokens, options.depth);
    for (int rep = 0; rep < options.reps; rep++)
      std::printf("%s%.3f", rep ? "," : "", tokenGeneration(runner, options.tokens, options.depth));
    std::printf("]}\n");
  } else if (options.mode == "pp") {
    promptProcessing(runner, std::min(options.tokens, 8), 0);  // warm-up
    std::printf("{\"mode\":\"pp\",\"threads\":%d,\"tokens\":%d,\"depth\":%d,\"samples\":[", options.threads,
                options.tokens, options.depth);
    for (int rep = 0; rep < options.reps; rep++)
      std::printf("%s%.3f", rep ? "," : "", promptProcessing(runner, options.tokens, options.depth));
    std::printf("]}\n");
  } else if (options.mode == "greedy") {
    if (options.promptFile.empty()) fail("--prompt-file is required in greedy mode");
    const std::string text = readFile(options.promptFile);
    generate(runner, text, 2);  // warm-up: page-in of the weights, first allocations
    for (int rep = 0; rep < options.reps; rep++) printGeneration(generate(runner, text, options.tokens), false);
  } else if (options.mode == "serve") {
    std::printf("{\"ready\":true,\"chatTemplate\":%s}\n",
                options.chat && llama_model_chat_template(runner.model, nullptr) != nullptr ? "true" : "false");
    std::fflush(stdout);
    std::string line;
    while (std::getline(std::cin, line)) {
      const size_t tgKey = line.find("\"tg\"");
      if (tgKey != std::string::npos) {
        const int tokens = std::max(1, std::atoi(line.c_str() + line.find(':', tgKey) + 1));
        const size_t depthKey = line.find("\"depth\"");
        const int depth = depthKey == std::string::npos ? 0 : std::atoi(line.c_str() + line.find(':', depthKey) + 1);
        std::printf("{\"tokensPerSecond\":%.3f}\n", tokenGeneration(runner, tokens, std::max(0, depth)));
        std::fflush(stdout);
        continue;
      }
      std::string prompt;
      int maxTokens = options.tokens;
      if (!parseRequest(line, prompt, maxTokens)) fail("a request line needs a \"prompt\" string");
      printGeneration(generate(runner, prompt, std::max(1, maxTokens)), true);
    }
  } else {
    fail("--mode must be greedy, tg, pp or serve");
  }
  llama_free(runner.context);
  llama_model_free(runner.model);
  return 0;
}

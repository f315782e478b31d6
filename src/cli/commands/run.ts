// `tessera run`: one prompt, the answer streamed to stdout. --logits k prints a per-token table of raw
// and processed probabilities instead; --json prints one JSON event per token (NDJSON) for scripts.
import type { Command } from "commander";
import type { LogitsTrace } from "../../core/logits-trace.js";
import { Message } from "../../messages/components/message.js";
import { SimpleContext } from "../../stdlib/contexts/simple-context.js";
import { logitsTableHeader, logitsTableRow } from "../logits-table.js";
import { addModelFlags, type ModelFlags, modelOptionsFromFlags } from "../model-flags.js";
import { integerArgument } from "../number-arguments.js";
import { openBackend } from "../open-model.js";
import { readPrompt } from "../read-prompt.js";

interface RunFlags extends ModelFlags {
  logits?: number;
  json?: boolean;
}

function writeLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** The steps added to a trace since `from` (traces fill while the thunk streams). */
function newSteps(trace: LogitsTrace | null, from: number) {
  return trace === null ? [] : trace.steps.slice(from);
}

async function run(promptWords: string[], flags: RunFlags): Promise<void> {
  const prompt = await readPrompt(promptWords);
  const backend = await openBackend({ ...flags, quiet: flags.json === true });
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort(new Error("interrupted"));
  process.once("SIGINT", onSigint);
  try {
    const topK = flags.logits;
    // --json reports every token, so it needs each step's token id and logprob: top-1 costs next to nothing.
    const capture = topK ?? (flags.json ? 1 : undefined);
    const modelOptions = {
      ...modelOptionsFromFlags(flags),
      ...(capture !== undefined && { logits: capture }),
      ...(topK !== undefined && { rawLogits: topK }),
    };
    const { thunk } = await backend.generateFromContext(new Message("user", prompt), new SimpleContext(), {
      modelOptions,
      signal: interrupt.signal,
    });
    if (flags.json) writeLine({ type: "start", model: backend.modelId, prompt });
    else if (topK !== undefined) process.stdout.write(logitsTableHeader());
    let shown = 0;
    const showSteps = (finished: boolean) => {
      const processed = thunk.generation.logits;
      const raw = thunk.generation.rawLogits;
      // A row needs both traces' step (they are filled together, but read both lengths to be safe).
      const ready = Math.min(processed?.steps.length ?? Infinity, raw?.steps.length ?? Infinity);
      const until = finished ? Math.max(processed?.steps.length ?? 0, raw?.steps.length ?? 0) : ready;
      for (const step of newSteps(processed ?? raw, shown).slice(0, Math.max(0, until - shown))) {
        const index = shown++;
        if (flags.json) {
          writeLine({
            type: "token",
            index,
            token: step.token,
            text: step.text,
            logprob: step.logprob,
            ...(topK !== undefined && {
              top: step.top.map(({ token, text, logprob }) => ({ token, text, logprob })),
              raw: raw?.steps[index]
                ? {
                    logprob: raw.steps[index].logprob,
                    top: raw.steps[index].top.map(({ token, text, logprob }) => ({ token, text, logprob })),
                  }
                : null,
            }),
          });
        } else process.stdout.write(logitsTableRow(index, processed?.steps[index], raw?.steps[index]));
      }
    };
    for await (const delta of thunk) {
      if (capture !== undefined) showSteps(false);
      else process.stdout.write(delta);
    }
    const text = await thunk.avalue();
    if (capture !== undefined) showSteps(true);
    const { usage, finishReasons, timings, ttfbMs } = thunk.generation;
    if (flags.json) {
      writeLine({ type: "finish", text, finishReason: finishReasons?.[0] ?? null, usage, timings, ttfbMs });
    } else if (topK !== undefined) {
      process.stdout.write(`\n${text}\n`);
    } else process.stdout.write("\n");
    if (!flags.json && process.stderr.isTTY && usage !== null && timings?.decodeMs) {
      const speed = ((usage.completionTokens - 1) * 1000) / timings.decodeMs;
      process.stderr.write(
        `\n${usage.promptTokens} prompt + ${usage.completionTokens} generated tokens, ${speed.toFixed(1)} tokens/s, ` +
          `finish: ${finishReasons?.[0] ?? "?"}\n`,
      );
    }
  } finally {
    process.removeListener("SIGINT", onSigint);
    await backend.dispose();
  }
}

export function registerRunCommand(program: Command): void {
  const command = program
    .command("run")
    .description("generate an answer to one prompt and stream it to stdout")
    .argument("[prompt...]", "the prompt (read from stdin when omitted)");
  addModelFlags(command, { maxTokens: 128 })
    .option(
      "--logits <k>",
      "print each token with its probability and the top-k alternatives, raw and processed",
      integerArgument(1, 100),
    )
    .option("--json", "write one JSON event per token (NDJSON): start, token…, finish")
    .addHelpText(
      "after",
      `
Examples:
  $ tessera run "Write a haiku about tokens"
  $ tessera run --model llama-3.2-1b:q4_0 -n 64 --temperature 0.7 --seed 1 "Once upon a time"
  $ tessera run --logits 5 -n 8 "The capital of France is"
  $ tessera run --json -n 16 "Hello" | jq -c 'select(.type == "token") | [.text, .logprob]'
  $ echo "Summarise: ..." | tessera run --model ./my-model.gguf`,
    )
    .action((promptWords: string[], flags: RunFlags) => run(promptWords, flags));
}

import type { Backend } from "../../core/backend.js";
import { CBlock } from "../../core/cblock.js";
import { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import type { Context } from "../../core/context.js";
import { InvalidLoopBudgetError } from "../../core/errors/invalid-loop-budget-error.js";
import { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { type Requirement, ValidationResult } from "../../core/requirement.js";
import type { SampleActionType, SamplingResult } from "../../core/sampling-result.js";
import {
  type SampleRun,
  SamplingStrategy,
  type SamplingStrategyOptions,
} from "../../core/sampling-strategy.js";
import { TemplateFormatter } from "../../formatting/template-formatter.js";
import { Message } from "../../messages/components/message.js";
import { ChatContextRequiredError } from "../errors/chat-context-required-error.js";
import { StandardRequirement } from "../requirements/standard-requirement.js";
import { SamplingHistory, type Validations } from "./sampling-history.js";

export type S2SolverMode = "fresh_start" | "continue_chat" | "best_attempt";
export type SofaiFeedbackStrategy = "simple" | "first_error" | "all_errors";

export interface SOFAISamplingStrategyOptions extends Omit<SamplingStrategyOptions, "requirements"> {
  /** The fast solver, tried first in a repair loop. */
  s1SolverBackend: Backend;
  /** The slow solver, asked once when S1 fails or stops improving. */
  s2SolverBackend: Backend;
  /** What S2 sees (default "fresh_start"): the original request, S1's whole chat, or S1's best attempt with its issues. */
  s2SolverMode?: S2SolverMode;
  /** S1 attempts before escalating (default 3). */
  loopBudget?: number;
  /** Judges requirements that have no validation function (default: the session backend judges). */
  judgeBackend?: Backend | null;
  /** How much the judge says about a failure (default "simple"). */
  feedbackStrategy?: SofaiFeedbackStrategy;
}

/**
 * Mellea's SOFAI (slow and fast AI) strategy. S1 generates in a chat, is validated, and gets a user turn
 * listing the failed requirements' reasons; it stops early when an attempt fails exactly like the one before
 * (no improvement). Then S2 answers once, from a fresh start, from S1's chat, or from S1's best attempt (most
 * requirements passed, the later one on ties) with its issues; its attempt is the result whether it passes or
 * not. Needs a ChatContext. With a judgeBackend, requirements without a validation function are judged by it
 * with the feedback strategy's prompt.
 */
export class SOFAISamplingStrategy extends SamplingStrategy {
  readonly s1SolverBackend: Backend;
  readonly s2SolverBackend: Backend;
  readonly s2SolverMode: S2SolverMode;
  readonly judgeBackend: Backend | null;
  readonly feedbackStrategy: SofaiFeedbackStrategy;

  constructor(options: SOFAISamplingStrategyOptions) {
    super({ ...options, loopBudget: options.loopBudget ?? 3 });
    if (!Number.isInteger(this.loopBudget) || this.loopBudget < 1)
      throw new InvalidLoopBudgetError(this.loopBudget);
    this.s1SolverBackend = options.s1SolverBackend;
    this.s2SolverBackend = options.s2SolverBackend;
    this.s2SolverMode = options.s2SolverMode ?? "fresh_start";
    this.judgeBackend = options.judgeBackend ?? null;
    this.feedbackStrategy = options.feedbackStrategy ?? "simple";
  }

  protected async doSample<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
  ): Promise<SamplingResult<T>> {
    if (!context.isChatContext)
      throw new ChatContextRequiredError(this.constructor.name, context.constructor.name);
    const history = new SamplingHistory<T>();
    let nextAction: SampleActionType<T> = action;
    let nextContext = context;
    let previousFailures: string | null = null;
    let lastContext = context;
    for (let attempt = 1; attempt <= run.loopBudget; attempt += 1) {
      const index = await this.#generateAndValidate(
        this.s1SolverBackend,
        nextAction,
        nextContext,
        backend,
        run,
        history,
      );
      lastContext = history.contexts[index]!;
      const validations = history.validations[index]!;
      if (validations.every(([, result]) => result.result)) return history.toResult(index, true);
      const failures = JSON.stringify(
        validations
          .filter(([, result]) => !result.result)
          .map(([requirement, result]) => [requirement.description, result.reason, result.score]),
      );
      // The same failures twice in a row: S1 is not improving, escalate now.
      if (attempt > 1 && failures === previousFailures) break;
      previousFailures = failures;
      if (attempt < run.loopBudget) {
        nextAction = repairMessage(validations) as never;
        nextContext = lastContext;
      }
    }
    const [s2Action, s2Context] = this.#prepareS2(action, context, lastContext, history);
    const index = await this.#generateAndValidate(
      this.s2SolverBackend,
      s2Action,
      s2Context,
      backend,
      run,
      history,
    );
    const passed = history.validations[index]!.every(([, result]) => result.result);
    return history.toResult(index, passed);
  }

  async #generateAndValidate<T>(
    solver: Backend,
    action: SampleActionType<T>,
    context: Context,
    sessionBackend: Backend,
    run: SampleRun<T>,
    history: SamplingHistory<T>,
  ): Promise<number> {
    run.signal?.throwIfAborted();
    const { thunk, context: resultContext } = await solver.generateFromContext<T>(action, context, {
      ...(run.format === undefined ? {} : { format: run.format }),
      ...(run.modelOptions === undefined ? {} : { modelOptions: run.modelOptions }),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
    await thunk.avalue();
    const computed = ComputedModelOutputThunk.from(thunk);
    const validations: Validations = [];
    for (const requirement of run.requirements) {
      validations.push([requirement, await this.#validate(requirement, resultContext, sessionBackend, run)]);
    }
    const index = history.push({ thunk: computed, context: resultContext, action }, validations);
    await this.hooks.emit("samplingIteration", {
      samplingId: run.samplingId,
      iteration: index,
      thunk: computed as ModelOutputThunk<unknown>,
      validations,
    });
    return index;
  }

  async #validate<T>(
    requirement: Requirement,
    context: Context,
    sessionBackend: Backend,
    run: SampleRun<T>,
  ): Promise<ValidationResult> {
    const options = {
      ...(run.modelOptions === undefined ? {} : { modelOptions: run.modelOptions }),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    };
    const judged =
      this.judgeBackend !== null &&
      requirement instanceof StandardRequirement &&
      requirement.validationFunction === null;
    if (!judged) return requirement.validate(sessionBackend, context, options);
    const question = new Message("user", judgePrompt(requirement.description ?? "", this.feedbackStrategy));
    const { thunk } = await this.judgeBackend!.generateFromContext(question, context, options);
    const answer = await thunk.avalue();
    const passed = readYesNo(answer);
    const reason =
      this.feedbackStrategy === "simple"
        ? passed
          ? "Requirement satisfied."
          : "Requirement not satisfied."
        : (/<feedback>([\s\S]*?)<\/feedback>/i.exec(answer)?.[1] ?? answer).trim();
    return new ValidationResult(passed, { reason, thunk });
  }

  #prepareS2<T>(
    originalAction: SampleActionType<T>,
    originalContext: Context,
    lastContext: Context,
    history: SamplingHistory<T>,
  ): [SampleActionType<T>, Context] {
    if (this.s2SolverMode === "fresh_start") return [originalAction, originalContext];
    if (this.s2SolverMode === "continue_chat") return [originalAction, lastContext];
    let best = 0;
    let bestCount = -1;
    history.validations.forEach((validations, index) => {
      const count = validations.filter(([, result]) => result.result).length;
      // >=: on ties the later attempt, which had more feedback.
      if (count >= bestCount) {
        bestCount = count;
        best = index;
      }
    });
    const issues = history.validations[best]!.filter(([, result]) => !result.result).map(
      ([requirement, result]) => `  - ${result.reason ?? requirement.description}`,
    );
    const parts = [
      `Original task:\n${this.#promptOf(originalAction)}\n\n` +
        "Previous attempts were made to solve this problem. " +
        `The best attempt (out of ${history.length} attempts) was:\n\n${history.generations[best]!.value}\n\n`,
    ];
    if (issues.length > 0)
      parts.push(`However, this attempt had the following issues:\n${issues.join("\n")}\n\n`);
    parts.push("Please improve upon the best attempt above to fully satisfy all requirements.");
    return [new Message("user", parts.join("")) as never, originalContext];
  }

  #promptOf<T>(action: SampleActionType<T>): string {
    if (action instanceof Message) return action.content;
    if (action instanceof CBlock || ModelOutputThunk.isInstance(action)) return String(action);
    const description = (action as { description?: unknown }).description;
    if (typeof description === "string" && description.length > 0) return description;
    return new TemplateFormatter(this.s2SolverBackend.modelId).print(action);
  }
}

function repairMessage(validations: Validations): Message {
  const lines = validations
    .filter(([, result]) => !result.result)
    .map(([requirement, result]) => `* ${result.reason ?? requirement.description}`);
  return new Message(
    "user",
    `The previous attempt failed. Please fix the following issues:\n${lines.join("\n")}`,
  );
}

function judgePrompt(description: string, strategy: SofaiFeedbackStrategy): string {
  const head = `Does the following output satisfy this requirement?\n\nRequirement: ${description}\n\n`;
  if (strategy === "first_error") {
    return (
      `${head}Instructions: Identify and report only the FIRST mistake you find. ` +
      "Answer with 'Yes' or 'No', then provide specific feedback about the first error in <feedback></feedback> tags.\n\n" +
      "Example format:\nNo\n<feedback>The first mistake is: X. Please fix it.</feedback>"
    );
  }
  if (strategy === "all_errors") {
    return (
      `${head}Instructions: Identify ALL mistakes comprehensively. ` +
      "Answer with 'Yes' or 'No', then provide detailed feedback about every error found in <feedback></feedback> tags.\n\n" +
      "Example format:\nNo\n<feedback>The following mistakes were found:\n1. Issue X\n2. Issue Y\n3. Issue Z</feedback>"
    );
  }
  return `${head}Answer with only 'Yes' or 'No'.`;
}

/** Mellea's reading of a judgment: starts with yes or no, else "yes" anywhere in the first line. */
function readYesNo(answer: string): boolean {
  const lower = answer.trim().toLowerCase();
  if (lower.startsWith("yes")) return true;
  if (lower.startsWith("no")) return false;
  return (lower.split("\n")[0] ?? "").includes("yes");
}

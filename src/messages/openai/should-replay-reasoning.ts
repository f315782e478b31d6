import type { Message } from "../components/message.js";

/**
 * Per message, whether its reasoning trace is sent back to the provider. The cross-provider rule:
 * only assistant turns that have reasoning and issued tool calls (judged by the turn's own
 * `toolCalls`, so a call whose tool never ran still counts). `provider` is a reserved hook for a
 * verified provider-specific exception; today every provider follows the rule.
 */
export function shouldReplayReasoning(
  messages: readonly Message[],
  _provider: string | null = null,
): boolean[] {
  return messages.map(
    (message) =>
      message.role === "assistant" && Boolean(message.thinking) && (message.toolCalls?.length ?? 0) > 0,
  );
}

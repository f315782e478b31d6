// Streaming responses arrive as ChatCompletionChunk deltas; backends merge them into the one
// choice a non-streaming call would have returned (seed: chat_completion_delta_merge).

export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

export interface ChoiceDelta {
  role?: string | null;
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: ToolCallDelta[] | null;
}

export interface LogprobsDelta {
  content?: unknown[] | null;
  refusal?: unknown[] | null;
}

/** One `choices[i]` entry of a streamed chunk. */
export interface ChunkChoice {
  delta: ChoiceDelta;
  index?: number | null;
  finish_reason?: string | null;
  stop_reason?: string | number | null;
  logprobs?: LogprobsDelta | null;
}

export interface MergedToolCall {
  id?: string;
  type?: string;
  function: { name: string; arguments: string | null };
}

export interface MergedChoice {
  finish_reason: string | null;
  stop_reason: string | number | null;
  index: number;
  logprobs: { content: unknown[]; refusal: unknown[] } | null;
  message: {
    content: string;
    reasoning_content: string;
    role: string | null;
    tool_calls: MergedToolCall[];
  };
}

/**
 * Merge the deltas of one choice. Tool-call fragments with the same `index` are joined (name and
 * arguments concatenated, id and type taken when they appear); with `forceAllToolCallsSeparate`,
 * every fragment is its own call, for providers that send complete calls with wrong indexes.
 */
export function chatCompletionDeltaMerge(
  chunks: readonly ChunkChoice[],
  forceAllToolCallsSeparate = false,
): MergedChoice {
  const toolCalls: MergedToolCall[] = [];
  const merged: MergedChoice = {
    finish_reason: null,
    stop_reason: null,
    index: 0,
    logprobs: null,
    message: { content: "", reasoning_content: "", role: null, tool_calls: toolCalls },
  };
  const callsByIndex = new Map<number, MergedToolCall>();

  for (const chunk of chunks) {
    if (chunk.finish_reason != null) merged.finish_reason = chunk.finish_reason;
    if (chunk.stop_reason != null) merged.stop_reason = chunk.stop_reason;
    if (chunk.index != null) merged.index = chunk.index;
    if (chunk.logprobs != null) {
      merged.logprobs ??= { content: [], refusal: [] };
      merged.logprobs.content.push(...(chunk.logprobs.content ?? []));
      merged.logprobs.refusal.push(...(chunk.logprobs.refusal ?? []));
    }

    const delta = chunk.delta;
    if (merged.message.role === null && delta.role != null) merged.message.role = delta.role;
    if (delta.content != null) merged.message.content += delta.content;
    if (delta.reasoning_content != null) merged.message.reasoning_content += delta.reasoning_content;

    for (const fragment of delta.tool_calls ?? []) {
      const index = fragment.index ?? toolCalls.length;
      let call = forceAllToolCallsSeparate ? undefined : callsByIndex.get(index);
      if (call === undefined) {
        call = { function: { name: "", arguments: null } };
        toolCalls.push(call);
        if (!forceAllToolCallsSeparate) callsByIndex.set(index, call);
      }
      // id and type arrive only on the first fragment of a call.
      if (fragment.id != null) call.id = fragment.id;
      if (fragment.type != null) call.type = fragment.type;
      const name = fragment.function?.name;
      if (name != null) call.function.name += name;
      const argumentsText = fragment.function?.arguments;
      if (argumentsText != null) call.function.arguments = (call.function.arguments ?? "") + argumentsText;
    }
  }
  return merged;
}

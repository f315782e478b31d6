import type { Backend } from "../../core/backend.js";
import type { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import type { Context } from "../../core/context.js";
import { Message, type MessageOptions } from "../../messages/components/message.js";
import type { Role } from "../../messages/roles.js";
import { type ActOptions, act } from "./act.js";

export interface ChatOptions
  extends Omit<ActOptions<Message>, "format">,
    Omit<MessageOptions, "toolCalls" | "toolCallId" | "thinking"> {
  /** Role of the message sent (default "user"). */
  role?: Role;
}

export interface ChatResult {
  /** The model's answer as an assistant message (with its reasoning and tool calls, when any). */
  message: Message;
  context: Context;
  output: ComputedModelOutputThunk<Message>;
}

/** Send one chat message and get the assistant's reply as a Message. */
export async function chat(
  content: string,
  context: Context,
  backend: Backend,
  options: ChatOptions = {},
): Promise<ChatResult> {
  const { role, images, audio, documents, ...actOptions } = options;
  const message = new Message(role ?? "user", content, {
    ...(images === undefined ? {} : { images }),
    ...(audio === undefined ? {} : { audio }),
    ...(documents === undefined ? {} : { documents }),
  });
  const result = await act<Message>(message, context, backend, actOptions);
  const parsed = result.output.parsedRepr;
  const reply = Message.isInstance(parsed) ? parsed : new Message("assistant", result.output.value);
  return { message: reply, context: result.context, output: result.output };
}

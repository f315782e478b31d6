import type { Message } from "../components/message.js";

/** A document as OpenAI-compatible RAG APIs take it. */
export interface DocumentDict {
  text: string;
  title?: string;
  doc_id?: string;
}

/** Every document attached to the messages, in order. */
export function messagesToDocs(messages: readonly Message[]): DocumentDict[] {
  return messages.flatMap((message) =>
    (message.documents ?? []).map((document) => {
      const entry: DocumentDict = { text: document.text };
      if (document.title !== null) entry.title = document.title;
      if (document.docId !== null) entry.doc_id = document.docId;
      return entry;
    }),
  );
}

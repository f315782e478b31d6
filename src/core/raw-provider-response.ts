/**
 * Backend-native response payload. Reading it couples code to one provider's shape; prefer thunk.value,
 * thunk.parsedRepr, thunk.toolCalls or thunk.generation for portable access.
 */
export interface RawProviderResponse {
  /** Provider that produced `response` (same as thunk.generation.provider). */
  provider: string;
  /** Full SDK or native response object; its shape depends on the provider. */
  response: unknown;
  /** Per-chunk objects of a streamed response; null for non-streaming requests. */
  streamedChunks: unknown[] | null;
}

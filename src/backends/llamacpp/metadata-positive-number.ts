/**
 * A GGUF value as the addon renders it (text) read as a positive number; per-layer arrays ("[2, 2, ...]")
 * count by their largest entry. Undefined when absent or not positive.
 */
export function metadataPositiveNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const numbers = (text.match(/\d+/g) ?? []).map(Number).filter((value) => value > 0);
  return numbers.length > 0 ? Math.max(...numbers) : undefined;
}

// English text for `tiny-text`: Debian's `fortunes` package (apt-get install fortunes), the prose
// collections only (no ASCII art, no offensive files, which Debian ships in fortunes-off anyway).
// Fortunes are separated by `%` lines in those files; here each becomes a paragraph, tabs become spaces,
// and fortunes with characters outside printable ASCII are dropped, so every character has its own
// token in the character vocabulary. The order is a seeded shuffle of whole fortunes.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { seededRandom, shuffled } from "./addition-task.js";
import { TrainingError } from "./errors/training-error.js";

export const fortunesFolder = "/usr/share/games/fortunes";

export const fortuneCollections = [
  "cookie",
  "people",
  "wisdom",
  "literature",
  "humorists",
  "education",
  "platitudes",
  "food",
  "fortunes",
  "love",
] as const;

export async function loadFortunes(folder = fortunesFolder): Promise<string[]> {
  const fortunes: string[] = [];
  for (const collection of fortuneCollections) {
    let text: string;
    try {
      text = await readFile(join(folder, collection), "utf8");
    } catch (error) {
      throw new TrainingError(
        `cannot read ${join(folder, collection)}: install Debian's fortunes package (apt-get install fortunes) or pass a text file as the corpus`,
        { option: "corpus", cause: error },
      );
    }
    for (const raw of text.split(/^%$/m)) {
      const fortune = raw.replace(/\t/g, " ").replace(/[ ]+$/gm, "").trim();
      if (fortune.length > 0 && /^[\x20-\x7e\n]+$/.test(fortune)) fortunes.push(fortune);
    }
  }
  return fortunes;
}

/** Fortunes in a seeded order, one paragraph each, and the share held out (the last ones). */
export function fortunesText(
  fortunes: readonly string[],
  validationFraction: number,
  seed: number,
): { training: string; validation: string; heldOut: readonly string[]; count: number } {
  const order = shuffled(fortunes, seededRandom(seed));
  const held = Math.max(1, Math.floor(order.length * validationFraction));
  const join = (items: readonly string[]): string => `${items.join("\n\n")}\n\n`;
  const heldOut = order.slice(-held);
  return { training: join(order.slice(0, -held)), validation: join(heldOut), heldOut, count: order.length };
}

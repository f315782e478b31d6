// The fuzz corpus: case i is a pure function of (run seed, i), so a failing case is replayed by its
// number alone. Seeds are chosen by weight, then a mutation family, then the mutation itself.

import type { FuzzSeed } from "./fuzz-seed-models.js";
import {
  flipBits,
  type Mutation,
  replaceHeaderStart,
  setFieldToExtreme,
  truncate,
} from "./gguf-byte-mutations.js";
import { mutateMetadata } from "./gguf-metadata-mutations.js";
import { mutateStrings } from "./gguf-string-mutations.js";
import { mutateStructure } from "./gguf-structure-mutations.js";
import { caseSeed, SeededRandom } from "./seeded-random.js";

export type MutationFamily =
  | "bit-flip"
  | "truncation"
  | "field-extreme"
  | "header-start"
  | "structure"
  | "string-bytes"
  | "absurd-metadata";

export interface FuzzCase extends Mutation {
  readonly index: number;
  readonly seedName: string;
  readonly family: MutationFamily;
}

const families: readonly { readonly family: MutationFamily; readonly share: number }[] = [
  { family: "bit-flip", share: 0.16 },
  { family: "truncation", share: 0.12 },
  { family: "field-extreme", share: 0.18 },
  { family: "header-start", share: 0.04 },
  { family: "structure", share: 0.22 },
  { family: "string-bytes", share: 0.14 },
  { family: "absurd-metadata", share: 0.14 },
];

const reEncoded: ReadonlySet<MutationFamily> = new Set(["structure", "string-bytes", "absurd-metadata"]);

function byShare<T>(random: SeededRandom, items: readonly T[], share: (item: T) => number): T {
  const total = items.reduce((sum, item) => sum + share(item), 0);
  let point = random.next() * total;
  for (const item of items) {
    point -= share(item);
    if (point < 0) return item;
  }
  return items[items.length - 1]!;
}

function mutate(family: MutationFamily, seed: FuzzSeed, random: SeededRandom): Mutation | undefined {
  switch (family) {
    case "bit-flip":
      return flipBits(seed, random);
    case "truncation":
      return truncate(seed, random);
    case "field-extreme":
      return setFieldToExtreme(seed, random);
    case "header-start":
      return replaceHeaderStart(seed, random);
    case "structure":
      return mutateStructure(seed, random);
    case "string-bytes":
      return mutateStrings(seed, random);
    case "absurd-metadata":
      return mutateMetadata(seed, random);
  }
}

/** Case `index` of the corpus seeded by `runSeed`. */
export function fuzzCase(seeds: readonly FuzzSeed[], runSeed: number, index: number): FuzzCase {
  const random = new SeededRandom(caseSeed(runSeed, index));
  for (;;) {
    const seed = byShare(random, seeds, (candidate) => candidate.weight);
    const { family } = byShare(random, families, (candidate) =>
      // The families below re-encode the whole file with our writer.
      reEncoded.has(candidate.family) && !seed.structureMutations ? 0 : candidate.share,
    );
    const mutation = mutate(family, seed, random);
    if (mutation !== undefined) return { ...mutation, index, seedName: seed.name, family };
  }
}

import type { Component } from "../component.js";
import type { AudioBlock } from "./audio-block.js";
import type { AudioUrlBlock } from "./audio-url-block.js";
import type { ImageBlock } from "./image-block.js";
import type { ImageUrlBlock } from "./image-url-block.js";

/**
 * The images attached to a component, or null when there are none. The component's `images` field wins;
 * only when it is absent (undefined) do the images on formatForLlm()'s representation count. A field that
 * is present but null or empty means none, without calling formatForLlm() (a deliberate trade: no extra
 * formatting for every attachment-free component; the field must agree with the representation).
 */
export function getImagesFromComponent(
  component: Component<unknown>,
): Array<ImageBlock | ImageUrlBlock> | null {
  return attachments(component, "images");
}

/** The audio attached to a component, or null; same rule as getImagesFromComponent. */
export function getAudioFromComponent(
  component: Component<unknown>,
): Array<AudioBlock | AudioUrlBlock> | null {
  return attachments(component, "audio");
}

function attachments<Key extends "images" | "audio">(
  component: Component<unknown>,
  key: Key,
): NonNullable<Component<unknown>[Key]> | null {
  const own = component[key];
  if (own !== undefined) return own !== null && own.length > 0 ? own : null;
  const representation = component.formatForLlm();
  if (typeof representation === "string") return null;
  const declared = representation[key];
  return declared !== undefined && declared !== null && declared.length > 0
    ? (declared as NonNullable<Component<unknown>[Key]>)
    : null;
}

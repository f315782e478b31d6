// Loads tessera.node (the contract it fulfils is addon-types.ts): the candidates it tries, in order, and
// node-llama-cpp's prebuilt llama.cpp libraries it links. A failed load lists every path it tried.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { findPackageFolder, packageRoot } from "../../support/package-folders.js";
import type { NativeAddon } from "./addon-types.js";
import { NativeAddonLoadError, type NativeLoadAttempt } from "./errors/native-addon-load-error.js";

/** node-llama-cpp's prebuilt library folder of a flavour ("" for CPU, "cuda", "vulkan"). */
export function prebuiltLibraryFolder(flavour: "" | "cuda" | "vulkan" = ""): string | undefined {
  const platform = `${process.platform}-${process.arch}`;
  const packageName = `@node-llama-cpp/${platform}${flavour === "" ? "" : `-${flavour}`}`;
  const root = findPackageFolder(packageName);
  if (root === undefined) return undefined;
  const folder = join(root, "bins", `${platform}${flavour === "" ? "" : `-${flavour}`}`);
  return existsSync(folder) ? folder : undefined;
}

let loaded: NativeAddon | undefined;

/** Loads tessera.node once and registers the CPU backends; throws NativeAddonLoadError listing every try. */
export function loadNativeAddon(): NativeAddon {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  const root = packageRoot();
  const candidates = [
    ...(process.env.TESSERA_NATIVE_ADDON ? [resolve(process.env.TESSERA_NATIVE_ADDON)] : []),
    join(root, "native", "build", "Release", "tessera.node"),
    join(root, "native", "build", "Debug", "tessera.node"),
  ];
  const attempts: NativeLoadAttempt[] = [];
  let addon: NativeAddon | undefined;
  for (const candidate of candidates) {
    if (!existsSync(candidate)) {
      attempts.push({ path: candidate, failure: "no such file" });
      continue;
    }
    try {
      addon = require(candidate) as NativeAddon;
      break;
    } catch (error) {
      attempts.push({ path: candidate, failure: error instanceof Error ? error.message : String(error) });
    }
  }
  if (addon === undefined) {
    throw new NativeAddonLoadError(
      "the tessera native addon",
      attempts,
      "Build it with `npm run build:native` (needs cmake and a C++17 compiler; no download). If the file exists " +
        "but fails to load with a missing libllama/libggml, node-llama-cpp's prebuilt package " +
        `@node-llama-cpp/${process.platform}-${process.arch} is missing or moved: run \`npm install\` and rebuild.`,
    );
  }
  // TESSERA_LLAMA_LIBRARIES_DIR: the folder of a self-built llama.cpp whose CPU backend must go with an addon
  // linked against it (the sanitizer build, scripts/build-native-sanitize.mjs). node-llama-cpp's prebuilt
  // backends would bring in a second, uninstrumented libggml-base.
  const libraries = process.env.TESSERA_LLAMA_LIBRARIES_DIR
    ? resolve(process.env.TESSERA_LLAMA_LIBRARIES_DIR)
    : prebuiltLibraryFolder("");
  if (libraries === undefined) {
    throw new NativeAddonLoadError(
      "llama.cpp's CPU backends",
      [
        {
          path: `@node-llama-cpp/${process.platform}-${process.arch}/bins`,
          failure: "package folder not found",
        },
      ],
      "Install node-llama-cpp (a dependency of tessera) for this platform; tessera uses its prebuilt libraries.",
    );
  }
  try {
    addon.loadBackends(libraries);
  } catch (error) {
    throw new NativeAddonLoadError(
      "llama.cpp's CPU backends",
      [{ path: libraries, failure: error instanceof Error ? error.message : String(error) }],
      "Reinstall node-llama-cpp so that its libggml-cpu-*.so variants are present.",
    );
  }
  loaded = addon;
  return addon;
}

// GPU backends (CUDA 13, CUDA 12, Vulkan) are registered on demand by gpu/gpu-backend-resolution.ts.

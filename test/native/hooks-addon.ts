// The test build of the addon (native/build-test-hooks/, made by `node scripts/build-native.mjs
// --test-hooks`, which `npm test` runs first): the release addon plus the hooks of
// native/src/test-hooks.h that widen race windows and inject faults, so each race fails its test every
// time before its fix. A test file that imports this uses it for all of its native calls.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NativeTestHooks } from "../../src/backends/llamacpp/addon-types.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import { packageRoot } from "../../src/support/package-folders.js";

// TESSERA_TEST_HOOKS_ADDON points the tests at another hooks build, e.g. one with a fix reverted, to
// check that its regression test fails without the fix.
export const hooksAddonPath =
  process.env.TESSERA_TEST_HOOKS_ADDON ??
  join(packageRoot(), "native", "build-test-hooks", "Release", "tessera.node");

/** Points this process at the hooks build and returns its hooks; must run before any native call. */
export function useHooksAddon(): NativeTestHooks {
  if (!existsSync(hooksAddonPath)) {
    throw new Error(
      `${hooksAddonPath} is missing: build it with \`node scripts/build-native.mjs --test-hooks\``,
    );
  }
  process.env.TESSERA_NATIVE_ADDON = hooksAddonPath;
  const addon = loadNativeAddon();
  if (addon.testHooks === undefined) {
    throw new Error("the loaded addon has no testHooks: another addon was loaded first in this process");
  }
  return addon.testHooks;
}

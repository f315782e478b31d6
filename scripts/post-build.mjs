// After tsc: copy non-TypeScript assets (nunjucks templates, static pages) next to the built
// JavaScript, and make the CLI entry executable so `npx tessera` works straight after install.
import { chmodSync, cpSync, existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const assetExtensions = [".njk", ".html", ".css", ".gbnf", ".json"];

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (assetExtensions.some((ext) => name.endsWith(ext)))
      cpSync(path, join("dist", relative("src", path)));
  }
}

copyAssets("src");
if (existsSync("dist/cli/main.js")) chmodSync("dist/cli/main.js", 0o755);

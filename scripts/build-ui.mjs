// Builds the dashboard (src/admin/ui) into dist/admin/ui: one minified, content-hashed JS bundle and one
// CSS bundle under assets/, and index.html pointing at them. The CSS bundle is uPlot's stylesheet and then
// styles/dashboard.css, whose @imports of one stylesheet per component or view esbuild inlines in their order
// (so the page loads one stylesheet, and the cascade is the order dashboard.css lists). The admin listener
// serves index.html uncached and the assets as immutable, so every build clears the old assets.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const SOURCE = "src/admin/ui";
const OUT = "dist/admin/ui";
const ASSETS = join(OUT, "assets");
const ENTRY = `${SOURCE}/main.tsx`;

rmSync(OUT, { recursive: true, force: true });
mkdirSync(ASSETS, { recursive: true });

const result = await build({
  entryPoints: [ENTRY],
  outdir: ASSETS,
  entryNames: "app-[hash]",
  assetNames: "[name]-[hash]",
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022", "chrome100", "firefox100", "safari15.4"],
  platform: "browser",
  jsx: "automatic",
  jsxImportSource: "preact",
  tsconfig: `${SOURCE}/tsconfig.json`,
  charset: "utf8",
  legalComments: "eof",
  metafile: true,
  logLevel: "warning",
});

const [file, output] =
  Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint === ENTRY) ?? [];
if (!file || !output?.cssBundle) throw new Error(`esbuild produced no JS and CSS bundle for ${ENTRY}`);
const js = `/assets/${basename(file)}`;
const css = `/assets/${basename(output.cssBundle)}`;

const template = readFileSync(`${SOURCE}/index.html`, "utf8");
if (!template.includes("{{js}}") || !template.includes("{{css}}"))
  throw new Error(`${SOURCE}/index.html must hold the {{js}} and {{css}} placeholders`);
writeFileSync(join(OUT, "index.html"), template.replace("{{js}}", js).replace("{{css}}", css));

const sizes = Object.keys(result.metafile.outputs).map((path) => {
  const bytes = readFileSync(path);
  return `${basename(path)} ${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzip)`;
});
console.log(`dashboard built into ${OUT}: ${sizes.join(", ")}`);

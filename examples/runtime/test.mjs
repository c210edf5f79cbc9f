// The demo's test stage: every dependency of an installed module must be installed too.
import fs from "node:fs";
import { installedFile } from "./modules.mjs";

const { modules } = JSON.parse(fs.readFileSync(installedFile(), "utf8"));
const installed = new Set(modules.map((module) => module.name));
let failures = 0;
for (const { name, manifest } of modules) {
  for (const dependency of manifest.depends ?? []) {
    const ok = installed.has(dependency);
    console.log(`${ok ? "ok  " : "FAIL"} ${name} depends on ${dependency}`);
    if (!ok) failures++;
  }
}
console.log(failures === 0 ? `all ${modules.length} module(s) passed` : `${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);

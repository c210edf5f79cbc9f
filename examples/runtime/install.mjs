// The demo's install stage: checks every requested module's manifest and records the installed set.
import fs from "node:fs";
import path from "node:path";
import { installedFile, readRequestedModules } from "./modules.mjs";

const modules = readRequestedModules();
for (const { name, manifest } of modules) {
  for (const key of ["name", "version", "summary"]) {
    if (typeof manifest[key] !== "string" || manifest[key] === "") {
      console.error(`module ${name}: module.json needs a "${key}" string`);
      process.exit(1);
    }
  }
  console.log(`installing ${name} ${manifest.version}: ${manifest.summary}`);
}
const file = installedFile();
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, JSON.stringify({ build_id: process.env.BUILD_ID, modules }, null, 2));
console.log(`installed ${modules.length} module(s) for build ${process.env.BUILD_ID}`);

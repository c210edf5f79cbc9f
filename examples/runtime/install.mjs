// The demo's install stage: checks every requested module's manifest and records the installed set. It works
// a moment on each module, as a real install does, so the dashboard's log shows lines arriving live.
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { installedFile, readRequestedModules } from "./modules.mjs";

const STEP_MS = 700;

const modules = readRequestedModules();
console.log(`resolving ${modules.length} module(s): ${modules.map(({ name }) => name).join(", ") || "none"}`);
for (const { name, manifest } of modules) {
  await sleep(STEP_MS);
  for (const key of ["name", "version", "summary"]) {
    if (typeof manifest[key] !== "string" || manifest[key] === "") {
      console.error(`module ${name}: module.json needs a "${key}" string`);
      process.exit(1);
    }
  }
  console.log(`installing ${name} ${manifest.version}: ${manifest.summary}`);
  await sleep(STEP_MS);
  const depends = manifest.depends ?? [];
  console.log(`  ${name}: ${depends.length ? `depends on ${depends.join(", ")}` : "no dependencies"}, done`);
}
const file = installedFile();
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, JSON.stringify({ build_id: process.env.BUILD_ID, modules }, null, 2));
console.log(`installed ${modules.length} module(s) for build ${process.env.BUILD_ID}`);

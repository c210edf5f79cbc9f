// Shared by the demo stages: reads the build's modules from the variables the build service sets.
import fs from "node:fs";
import path from "node:path";

/** Each requested module (MODULES) with its manifest, found in the first ADDONS_PATH folder that has it. */
export function readRequestedModules(env = process.env) {
  const names = (env.MODULES ?? "").split(",").filter(Boolean);
  const folders = (env.ADDONS_PATH ?? "").split(":").filter(Boolean);
  return names.map((name) => {
    const folder = folders.find((candidate) => fs.existsSync(path.join(candidate, name, "module.json")));
    if (!folder) throw new Error(`module ${name}: not found in ADDONS_PATH (${folders.join(":")})`);
    const file = path.join(folder, name, "module.json");
    let manifest;
    try {
      manifest = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (error) {
      throw new Error(`module ${name}: ${file} is not valid JSON: ${error.message}`);
    }
    return { name, path: path.join(folder, name), manifest };
  });
}

/** Where `install` records what it installed, for `test` and the server. */
export function installedFile(env = process.env) {
  return path.join(env.WORKSPACE ?? ".", "runtime", "installed.json");
}

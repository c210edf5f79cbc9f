import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { BuildsConfig } from "../config";

/**
 * What an install reads, as one SHA-256 (click-odoo-initdb's addons hash, widened to the commands): the sorted
 * module list; every file of those modules and of the modules their manifests' `depends` name, found in the
 * build's checkouts in ADDONS_PATH order (the first repository holding a module is the one the install loads);
 * the install, save and restore commands; for compose, the template's image references (the Odoo image brings
 * `base` and the modules it ships); and key_extra. Never a commit, a build id, a port or a name: a push that
 * changes no installed module keeps the key, and two builds of the same files share it.
 */
export interface KeyInput {
  modules: string[];
  /** The checkouts in ADDONS_PATH order. */
  repositories: { alias: string; checkout: string; modulesPath: string }[];
  config: BuildsConfig;
}

export interface InstallCacheKey {
  key: string;
  /** The listed modules and those their manifests depend on, sorted; those found in no checkout count by name. */
  modules: string[];
}

// Compiled files follow their sources; a key must not change because Python ran.
const SKIPPED_FILE = /\.py[co]$/;
const SKIPPED_FOLDER = "__pycache__";

export async function installCacheKey(input: KeyInput): Promise<InstallCacheKey> {
  const { config } = input;
  const cache = config.runtime.install_cache;
  if (!cache) throw new Error("runtime.install_cache is not configured");
  const hash = crypto.createHash("sha256");
  const field = (name: string, value: string) => hash.update(`${name}\0${value.length}\0${value}\0`);
  const listed = [...new Set(input.modules)].sort();
  field("modules", listed.join(","));
  field("driver", config.runtime.driver);
  const install = config.runtime.driver === "compose" ? config.runtime.compose?.install : config.runtime.install;
  field("install", JSON.stringify(install ?? null));
  field("save", JSON.stringify(cache.save));
  field("restore", JSON.stringify(cache.restore));
  field("images", composeImages(config).join("\n"));
  field("key_extra", cache.key_extra);
  const found = new Map<string, string>();
  const closure = new Set<string>();
  const pending = [...listed];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (closure.has(name)) continue;
    closure.add(name);
    const module = findModule(input.repositories, name, config);
    if (module === null) continue;
    found.set(name, module.folder);
    pending.push(...manifestDepends(module.manifest));
  }
  const modules = [...closure].sort();
  for (const name of modules) {
    const folder = found.get(name);
    field("module", name);
    if (folder !== undefined) await hashFolder(hash, folder);
  }
  return { key: hash.digest("hex"), modules };
}

/**
 * A module's folder and manifest in the first checkout (ADDONS_PATH order) that holds it, each repository with its
 * own module_manifest (lib/builds/git/mirrors.ts finds modules the same way), or null.
 */
function findModule(
  repositories: KeyInput["repositories"],
  name: string,
  config: BuildsConfig,
): { folder: string; manifest: string } | null {
  if (!/^[A-Za-z0-9_]+$/.test(name)) return null;
  for (const repository of repositories) {
    const manifestFile =
      config.repositories.find((candidate) => candidate.alias === repository.alias)?.module_manifest ??
      "__manifest__.py";
    const folder = path.join(repository.checkout, repository.modulesPath, name);
    const manifest = path.join(folder, manifestFile);
    // A module that is a link is not walked: the server would read, as itself, wherever the build's code points it.
    if (!fs.lstatSync(folder, { throwIfNoEntry: false })?.isDirectory()) continue;
    if (fs.lstatSync(manifest, { throwIfNoEntry: false })?.isFile()) return { folder, manifest };
  }
  return null;
}

/**
 * The names in a manifest's `depends` list. Odoo's manifests are Python dict literals and this project's test
 * modules JSON: both spell it `"depends": ["a", 'b']`, which a pattern reads without running anything.
 */
export function manifestDepends(manifest: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(manifest, "utf8");
  } catch {
    return [];
  }
  const list = /["']depends["']\s*:\s*[[(]([^\])]*)[\])]/.exec(text);
  if (!list) return [];
  return [...list[1].matchAll(/["']([A-Za-z0-9_]+)["']/g)].map((match) => match[1]);
}

/** The image references of the Compose template's services, sorted; none for the process driver. */
function composeImages(config: BuildsConfig): string[] {
  const template = config.runtime.driver === "compose" ? config.runtime.compose?.template : undefined;
  if (!template) return [];
  let services: unknown;
  try {
    services = (parseYaml(fs.readFileSync(template, "utf8")) as { services?: unknown } | null)?.services;
  } catch {
    return [];
  }
  if (!services || typeof services !== "object") return [];
  return Object.entries(services as Record<string, { image?: unknown }>)
    .map(([service, definition]) => `${service}=${typeof definition?.image === "string" ? definition.image : ""}`)
    .sort();
}

/**
 * Every file below a module folder, in a fixed order: its relative path (so an empty or renamed file counts) and
 * its content. Links are hashed as their target's text and never followed, and anything else that is not a file
 * (a fifo a checkout cannot hold anyway) is left out: reading it could block or leave the module.
 */
async function hashFolder(hash: crypto.Hash, root: string): Promise<void> {
  const walk = async (relative: string): Promise<void> => {
    const entries = (await fs.promises.readdir(path.join(root, relative), { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const child = path.join(relative, entry.name);
      const absolute = path.join(root, child);
      if (entry.isDirectory()) {
        if (entry.name !== SKIPPED_FOLDER) await walk(child);
      } else if (entry.isSymbolicLink()) {
        hash.update(`link\0${child}\0${await fs.promises.readlink(absolute)}\0`);
      } else if (entry.isFile() && !SKIPPED_FILE.test(entry.name)) {
        const content = await fs.promises.readFile(absolute);
        hash.update(`file\0${child}\0${content.length}\0`);
        hash.update(content);
      }
    }
  };
  await walk("");
}

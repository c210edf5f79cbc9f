import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidBuildsConfigError, loadBuildsConfig } from "@/lib/builds/config";
import { installCacheKey } from "@/lib/builds/install-cache/key";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "install-cache-key-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Two checkouts as a build has them: `odoo` (Python manifests) before `custom` (JSON manifests). */
function makeCheckouts(name: string) {
  const root = path.join(dir, name);
  const odoo = path.join(root, "odoo");
  const custom = path.join(root, "custom");
  const module = (checkout: string, manifest: string, module: string, depends: string[], files = {}) => {
    const folder = path.join(checkout, "addons", module);
    fs.mkdirSync(folder, { recursive: true });
    const list = depends.map((d) => `'${d}'`).join(", ");
    fs.writeFileSync(
      path.join(folder, manifest),
      manifest.endsWith(".py")
        ? `{\n    'name': '${module}',\n    'depends': [${list}],\n}\n`
        : JSON.stringify({ name: module, depends }),
    );
    for (const [file, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      fs.writeFileSync(path.join(folder, file), content as string);
    }
  };
  module(odoo, "__manifest__.py", "base", [], { "models/base.py": "class Base: pass\n" });
  module(odoo, "__manifest__.py", "sale", ["base"], { "models/sale.py": "class Sale: pass\n" });
  module(odoo, "__manifest__.py", "unused", ["base"], { "models/unused.py": "x = 1\n" });
  module(custom, "manifest.json", "shop", ["sale"], { "views/shop.xml": "<odoo/>\n" });
  module(custom, "manifest.json", "blog", [], { "views/blog.xml": "<odoo/>\n" });
  return { root, odoo, custom };
}

function configWith(runtime: string): ReturnType<typeof loadBuildsConfig> {
  const file = path.join(dir, `config-${Math.random().toString(16).slice(2)}.yaml`);
  fs.writeFileSync(
    file,
    `
runtime:
${runtime}
repositories:
  - { alias: odoo, url: ., modules_path: addons, priority: 1 }
  - { alias: custom, url: ., modules_path: addons, module_manifest: manifest.json, priority: 2 }
`,
  );
  return loadBuildsConfig(file);
}

const PROCESS_RUNTIME = `
  install: ./install.sh
  install_cache: { save: ./save.sh, restore: ./restore.sh }
`;

async function keyOf(
  checkouts: ReturnType<typeof makeCheckouts>,
  modules: string[],
  config = configWith(PROCESS_RUNTIME),
) {
  return installCacheKey({
    modules,
    config,
    repositories: [
      { alias: "odoo", checkout: checkouts.odoo, modulesPath: "addons" },
      { alias: "custom", checkout: checkouts.custom, modulesPath: "addons" },
    ],
  });
}

describe("the install cache's key", () => {
  it("covers the listed modules and those their manifests depend on, in any order", async () => {
    const checkouts = makeCheckouts("order");
    const first = await keyOf(checkouts, ["shop", "blog"]);
    expect(first.modules).toEqual(["base", "blog", "sale", "shop"]);
    expect(first.key).toMatch(/^[0-9a-f]{64}$/);
    expect((await keyOf(checkouts, ["blog", "shop", "blog"])).key).toBe(first.key);
    expect((await keyOf(checkouts, ["shop"])).key).not.toBe(first.key);
  });

  it("stays when a module nobody installs changes, and changes with a file of an installed one or a dependency", async () => {
    const checkouts = makeCheckouts("files");
    const before = (await keyOf(checkouts, ["shop"])).key;
    fs.writeFileSync(path.join(checkouts.odoo, "addons", "unused", "models", "unused.py"), "x = 2\n");
    fs.writeFileSync(path.join(checkouts.custom, "addons", "blog", "views", "blog.xml"), "<odoo>changed</odoo>\n");
    // Compiled Python follows its source: it does not count.
    fs.writeFileSync(path.join(checkouts.odoo, "addons", "sale", "models", "sale.pyc"), "bytecode");
    expect((await keyOf(checkouts, ["shop"])).key).toBe(before);

    // A dependency's file (sale, through shop's manifest), then a new empty file of the module itself.
    fs.writeFileSync(path.join(checkouts.odoo, "addons", "sale", "models", "sale.py"), "class Sale: total = 0\n");
    const afterDependency = (await keyOf(checkouts, ["shop"])).key;
    expect(afterDependency).not.toBe(before);
    fs.writeFileSync(path.join(checkouts.custom, "addons", "shop", "empty.txt"), "");
    expect((await keyOf(checkouts, ["shop"])).key).not.toBe(afterDependency);
  });

  it("takes the checkout first in ADDONS_PATH order, and hashes a link's target without following it", async () => {
    const checkouts = makeCheckouts("links");
    // The same module in the first checkout is the one installed: the later one's files no longer count.
    const shadowing = path.join(checkouts.odoo, "addons", "blog");
    fs.mkdirSync(shadowing, { recursive: true });
    fs.writeFileSync(path.join(shadowing, "__manifest__.py"), "{'name': 'blog', 'depends': []}\n");
    const shadowed = (await keyOf(checkouts, ["blog"])).key;
    fs.writeFileSync(path.join(checkouts.custom, "addons", "blog", "views", "blog.xml"), "<odoo>later</odoo>\n");
    expect((await keyOf(checkouts, ["blog"])).key).toBe(shadowed);
    fs.symlinkSync("/etc/hostname", path.join(shadowing, "link"));
    const linked = (await keyOf(checkouts, ["blog"])).key;
    expect(linked).not.toBe(shadowed);
    fs.rmSync(path.join(shadowing, "link"));
    fs.symlinkSync("/etc/passwd", path.join(shadowing, "link"));
    expect((await keyOf(checkouts, ["blog"])).key).not.toBe(linked);
  });

  it("does not walk a module that is a link, wherever it points", async () => {
    const checkouts = makeCheckouts("linked-module");
    const elsewhere = path.join(checkouts.root, "elsewhere");
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, "manifest.json"), JSON.stringify({ name: "outside", depends: ["base"] }));
    fs.symlinkSync(elsewhere, path.join(checkouts.custom, "addons", "outside"));
    const key = await keyOf(checkouts, ["outside"]);
    // Counted by name only, as a module of the image would be: neither its files nor its depends are read.
    expect(key.modules).toEqual(["outside"]);
    fs.writeFileSync(path.join(elsewhere, "secret.txt"), "changed");
    expect((await keyOf(checkouts, ["outside"])).key).toBe(key.key);
  });

  it("changes with the install, save and restore commands and key_extra", async () => {
    const checkouts = makeCheckouts("commands");
    const base = (await keyOf(checkouts, ["shop"])).key;
    const variants = [
      `  install: ./install.sh --without-demo\n  install_cache: { save: ./save.sh, restore: ./restore.sh }`,
      `  install: ./install.sh\n  install_cache: { save: ./save.sh --all, restore: ./restore.sh }`,
      `  install: ./install.sh\n  install_cache: { save: ./save.sh, restore: ./restore.sh -j 2 }`,
      `  install: ./install.sh\n  install_cache: { save: ./save.sh, restore: ./restore.sh, key_extra: "demo=0" }`,
    ];
    const keys = await Promise.all(
      variants.map(async (runtime) => (await keyOf(checkouts, ["shop"], configWith(runtime))).key),
    );
    expect(new Set([base, ...keys]).size).toBe(5);
    // Eviction's bounds are not part of what an install reads.
    const bounds = `  install: ./install.sh\n  install_cache: { save: ./save.sh, restore: ./restore.sh, max_entries: 2, max_age_days: 1 }`;
    expect((await keyOf(checkouts, ["shop"], configWith(bounds))).key).toBe(base);
  });

  it("changes with an image of the Compose template", async () => {
    const checkouts = makeCheckouts("images");
    const template = path.join(dir, "compose.yaml");
    const compose = (image: string) => {
      fs.writeFileSync(template, `services:\n  web: { image: "${image}" }\n  db: { image: "postgres:15" }\n`);
      return configWith(`
  driver: compose
  compose:
    template: ${template}
    install: { service: web, command: ["odoo", "-i", "\${MODULES}"] }
  install_cache:
    save: { service: web, command: ["save"] }
    restore: { service: web, command: ["restore"] }
`);
    };
    const first = (await keyOf(checkouts, ["shop"], compose("odoo:16.0"))).key;
    expect((await keyOf(checkouts, ["shop"], compose("odoo:16.0"))).key).toBe(first);
    expect((await keyOf(checkouts, ["shop"], compose("odoo:16.0-20261201"))).key).not.toBe(first);
  });
});

describe("runtime.install_cache in the configuration", () => {
  it("fills its defaults", () => {
    expect(configWith(PROCESS_RUNTIME).runtime.install_cache).toEqual({
      save: "./save.sh",
      restore: "./restore.sh",
      max_entries: 5,
      max_age_days: 30,
      key_extra: "",
    });
  });

  it("wants commands of the driver's kind, and a one-off container for compose", () => {
    const message = (runtime: string) => {
      try {
        configWith(runtime);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidBuildsConfigError);
        return (error as Error).message;
      }
      throw new Error("accepted");
    };
    expect(message(`  install_cache: { save: { service: web, command: [save] }, restore: ./r.sh }`)).toContain(
      "runtime.install_cache.save: must be a shell command with driver process",
    );
    const template = path.join(dir, "plain-compose.yaml");
    fs.writeFileSync(template, "services:\n  web: { image: busybox }\n");
    expect(
      message(`
  driver: compose
  compose: { template: ${template} }
  install_cache:
    save: { service: web, mode: exec, command: [save] }
    restore: { service: web, command: [restore] }`),
    ).toContain('runtime.install_cache.save.mode: must be "run"');
    expect(message(`  install_cache: { save: ./s.sh, restore: ./r.sh, max_entries: 0 }`)).toContain(
      "runtime.install_cache.max_entries: must be at least 1",
    );
  });
});

import fs from "node:fs";
import path from "node:path";
import { parse } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { LOCALES } from "@/i18n/locale";

const folder = path.resolve(import.meta.dirname, "..", "..", "messages");
type Tree = { [key: string]: string | Tree };
const read = (locale: string) => JSON.parse(fs.readFileSync(path.join(folder, `${locale}.json`), "utf8")) as Tree;

/** Every message's dotted key, with its text. */
function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") entries.set(name, value);
    else for (const [inner, text] of flatten(value, name)) entries.set(inner, text);
  }
  return entries;
}

/** The names a message takes as values or tags ({count}, <link>), which every language must use alike. */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const walk = (nodes: ReturnType<typeof parse>) => {
    for (const node of nodes as ({ value?: unknown; children?: unknown; options?: object } & object)[]) {
      if ("value" in node && typeof node.value === "string" && node.value !== "" && "type" in node && node.type !== 0) {
        names.add(node.value);
      }
      if (Array.isArray(node.children)) walk(node.children as ReturnType<typeof parse>);
      if (node.options) {
        for (const option of Object.values(node.options) as { value: ReturnType<typeof parse> }[]) walk(option.value);
      }
    }
  };
  walk(parse(message, { ignoreTag: false }));
  return [...names].sort();
}

describe("messages/<language>.json", () => {
  const files = Object.fromEntries(LOCALES.map((locale) => [locale, flatten(read(locale))]));

  it.each(LOCALES)("%s has every key the other languages have, and no other", (locale) => {
    for (const other of LOCALES) {
      const missing = [...files[other].keys()].filter((key) => !files[locale].has(key));
      expect(missing, `in messages/${locale}.json, present in messages/${other}.json`).toEqual([]);
    }
  });

  it.each(LOCALES)("%s: every message parses and takes the same values and tags as in English", (locale) => {
    for (const [key, text] of files[locale]) {
      const english = files.en.get(key);
      if (english === undefined) continue;
      expect(argumentsOf(text), `${locale} ${key}`).toEqual(argumentsOf(english));
    }
  });

  it.each(LOCALES)("%s: no message is left empty", (locale) => {
    expect([...files[locale]].filter(([, text]) => text.trim() === "").map(([key]) => key)).toEqual([]);
  });
});

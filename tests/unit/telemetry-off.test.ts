import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Telemetry is off: Next.js's by NEXT_TELEMETRY_DISABLED, and Prisma's CLI, which otherwise starts a
 * background process reporting to checkpoint.prisma.io on every command, by CHECKPOINT_DISABLE.
 */
const root = path.resolve(import.meta.dirname, "..", "..");
const scripts = (
  JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

describe("the npm scripts keep telemetry off", () => {
  it.each(Object.entries(scripts).filter(([, command]) => /\bprisma\b|prepare-start/.test(command)))(
    "%s runs Prisma's CLI with CHECKPOINT_DISABLE=1",
    (_, command) => {
      for (const step of command.split("&&").filter((part) => /\bprisma\b|prepare-start/.test(part)))
        expect(step.trim()).toMatch(/^CHECKPOINT_DISABLE=1 /);
    },
  );

  it.each(Object.entries(scripts).filter(([, command]) => /\bnext (dev|build|start)\b/.test(command)))(
    "%s runs Next.js with NEXT_TELEMETRY_DISABLED=1",
    (_, command) => {
      expect(command).toMatch(/NEXT_TELEMETRY_DISABLED=1 next /);
    },
  );

  it("the start script's migration passes CHECKPOINT_DISABLE to Prisma itself", () => {
    expect(fs.readFileSync(path.join(root, "scripts/prepare-start.ts"), "utf8")).toMatch(/CHECKPOINT_DISABLE: "1"/);
  });
});

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBuildsConfig } from "@/lib/builds/config";

// The demo `npm start` builds by default: a newcomer's first build should show its log arriving live.
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const shipped = loadBuildsConfig(path.join(projectRoot, "builds.config.yaml"));
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "demo-stages-"));
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

describe("the shipped demo's install stage", () => {
  it("prints its lines over a few seconds, not all at once at the end", async () => {
    // In a checkout that is not this repository: the scripts are found through APP_DIR.
    const checkout = fs.mkdtempSync(path.join(workspace, "checkout-"));
    const child = spawn("/bin/sh", ["-c", shipped.runtime.install as string], {
      cwd: checkout,
      env: {
        ...process.env,
        APP_DIR: projectRoot,
        BUILD_ID: "demo-stage-test",
        MODULES: "hello,inventory,sales",
        ADDONS_PATH: path.join(projectRoot, "examples", "modules"),
        WORKSPACE: workspace,
      },
    });
    const arrivals: { at: number; text: string }[] = [];
    child.stdout.on("data", (chunk: Buffer) => arrivals.push({ at: Date.now(), text: chunk.toString() }));
    const exitCode = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const exitedAt = Date.now();

    expect(exitCode).toBe(0);
    const text = arrivals.map((arrival) => arrival.text).join("");
    expect(text).toContain("installing sales 1.0.0: Quotations and orders; needs inventory.");
    expect(text).toContain("sales: depends on inventory, done");
    expect(text).toMatch(/installed 3 module\(s\) for build demo-stage-test\n$/);
    // The first line is on screen seconds before the stage ends, and the lines come in several pieces.
    expect(exitedAt - arrivals[0].at).toBeGreaterThanOrEqual(2_000);
    expect(arrivals.length).toBeGreaterThanOrEqual(4);
    expect(JSON.parse(fs.readFileSync(path.join(workspace, "runtime", "installed.json"), "utf8")).modules).toHaveLength(
      3,
    );
  }, 30_000);
});

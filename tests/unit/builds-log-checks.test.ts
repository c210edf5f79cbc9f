import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { seenOnBase } from "@/lib/builds/build-errors";
import {
  checkLogFile,
  cleanErrorText,
  compileLogCheckRules,
  DEFAULT_ERROR_PATTERNS,
  DEFAULT_WARNING_PATTERNS,
  fingerprintOf,
  LogChecker,
} from "@/lib/builds/logs/log-checks";

const rules = compileLogCheckRules({ errors: DEFAULT_ERROR_PATTERNS, warnings: DEFAULT_WARNING_PATTERNS });

function check(text: string, pieces = [text]) {
  const checker = new LogChecker(rules);
  for (const piece of pieces) checker.feed(piece);
  return checker.end();
}

const ODOO_LOG = [
  "2026-12-02 10:00:00,120 4242 INFO db odoo.modules.loading: loading 42 modules...",
  "2026-12-02 10:00:00,123 4242 WARNING db odoo.models: The field sale.order.x has no string",
  "2026-12-02 10:00:01,500 4242 ERROR db odoo.modules.loading: Failed to load module sale_fix",
  "Traceback (most recent call last):",
  '  File "/srv/builds/3f9a1c2b7d4e5f60/sources/addons/sale_fix/models.py", line 12, in <module>',
  "    raise ValueError(record_id)",
  "ValueError: 1234",
  "2026-12-02 10:00:02,000 4242 CRITICAL db odoo.service.server: Failed to initialize database `db`.",
  "2026-12-02 10:00:02,100 4242 INFO db odoo.service.server: Initiating shutdown",
  "",
].join("\n");

describe("log checks: Odoo's log lines", () => {
  it("counts ERROR and CRITICAL records as errors and WARNING records as warnings", () => {
    const found = check(ODOO_LOG);
    expect(found.errors).toBe(2);
    expect(found.warnings).toBe(1);
  });

  it("keeps the traceback after an ERROR record with it, as one error", () => {
    const [first, second] = check(ODOO_LOG).entries;
    expect(first.split("\n")).toHaveLength(5);
    expect(first).toMatch(
      /^2026-12-02 10:00:01,500 4242 ERROR db .*\nTraceback .*\n.*line 12.*\n.*\nValueError: 1234$/,
    );
    expect(second).toBe(
      "2026-12-02 10:00:02,000 4242 CRITICAL db odoo.service.server: Failed to initialize database `db`.",
    );
  });

  it("counts a traceback of its own (a plain Python script) as an error, and two in a row as two", () => {
    const script = ["Traceback (most recent call last):", '  File "x.py", line 1', "KeyError: 'a'"].join("\n");
    const found = check(`${script}\n${script}\n`);
    expect(found.errors).toBe(2);
    expect(found.entries[1]).toBe(script);
  });

  it("does not take lines that only look alike: INFO records, an ERROR inside a message, a date without pid", () => {
    const found = check(
      [
        "2026-12-02 10:00:00,123 4242 INFO db odoo: 0 ERROR found",
        "ERROR: not an Odoo record",
        "2026-12-02 10:00:00 ERROR db odoo: no milliseconds, no pid",
        "  Traceback (most recent call last):",
      ].join("\n"),
    );
    expect(found).toEqual({ errors: 0, warnings: 0, entries: [] });
  });

  it("finds the same whatever pieces the log arrives in, a line split across reads included", () => {
    const whole = check(ODOO_LOG);
    const pieces = ODOO_LOG.match(/[\s\S]{1,7}/g) ?? [];
    expect(check(ODOO_LOG, pieces)).toEqual(whole);
  });

  it("reads a log file from an offset: what this run of a stage wrote", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "log-checks-"));
    const file = path.join(folder, "start.log");
    const before = "2026-12-02 09:00:00,000 1 ERROR db odoo: from the first run\n";
    fs.writeFileSync(file, before + ODOO_LOG);
    expect((await checkLogFile(file, 0, rules)).errors).toBe(3);
    expect((await checkLogFile(file, Buffer.byteLength(before), rules)).errors).toBe(2);
    expect(await checkLogFile(path.join(folder, "missing.log"), 0, rules)).toEqual({
      errors: 0,
      warnings: 0,
      entries: [],
    });
    fs.rmSync(folder, { recursive: true });
  });

  it("takes the operator's own patterns", () => {
    const custom = compileLogCheckRules({ errors: ["^FATAL "], warnings: ["^WARN "] });
    const checker = new LogChecker(custom);
    checker.feed("FATAL disk\n  detail\nWARN slow\n2026-12-02 10:00:01,500 4242 ERROR db x: not for these rules\n");
    expect(checker.end()).toEqual({ errors: 1, warnings: 1, entries: ["FATAL disk\n  detail"] });
  });
});

describe("cleaning an error of what differs between runs", () => {
  const build = { id: "3f9a1c2b7d4e5f60", paths: ["/srv/builds/3f9a1c2b7d4e5f60", "/srv/builds"] };

  it("removes dates, pids, line numbers, numbers, hex ids and the build's folder", () => {
    const [entry] = check(ODOO_LOG).entries;
    expect(cleanErrorText(entry, build)).toBe(
      [
        "<date> <n> ERROR db odoo.modules.loading: Failed to load module sale_fix",
        "Traceback (most recent call last):",
        '  File "<build>/sources/addons/sale_fix/models.py", line <n>, in <module>',
        "    raise ValueError(record_id)",
        "ValueError: <n>",
      ].join("\n"),
    );
  });

  it("gives the same error of two builds, at other times, pids and lines, one fingerprint; another error another", () => {
    const other = { id: "0123456789abcdef", paths: ["/srv/builds/0123456789abcdef", "/srv/builds"] };
    const first = check(ODOO_LOG).entries[0];
    const second = first
      .replaceAll("3f9a1c2b7d4e5f60", "0123456789abcdef")
      .replace("10:00:01,500 4242", "23:59:59,001 77")
      .replace("line 12", "line 14")
      .replace("ValueError: 1234", "ValueError: 98");
    expect(cleanErrorText(second, other)).toBe(cleanErrorText(first, build));
    expect(fingerprintOf(cleanErrorText(second, other))).toBe(fingerprintOf(cleanErrorText(first, build)));
    expect(fingerprintOf(cleanErrorText(first.replace("ValueError", "KeyError"), build))).not.toBe(
      fingerprintOf(cleanErrorText(first, build)),
    );
  });

  it("replaces hexadecimal ids and addresses but keeps words", () => {
    expect(
      cleanErrorText("object at 0x7f3a2b1c in deadbeef1 (uuid 123e4567-e89b-12d3-a456-426614174000) facade", build),
    ).toBe("object at <hex> in <hex> (uuid <uuid>) facade");
  });
});

describe("whether a base branch has an error", () => {
  const defaults = new Set(["main", "16.0"]);
  it("is true when a default_ref or a branch's base saw it, false on feature branches only", () => {
    expect(seenOnBase(["16.0", "16.0-fix-sale"], defaults)).toBe(true);
    expect(seenOnBase(["17.0", "17.0-fix"], defaults)).toBe(true);
    expect(seenOnBase(["16.0-fix-sale", "16.0-fix-stock"], defaults)).toBe(false);
    expect(seenOnBase(["main"], defaults)).toBe(true);
  });
});

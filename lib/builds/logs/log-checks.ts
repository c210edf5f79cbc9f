import crypto from "node:crypto";
import fs from "node:fs";

/**
 * Log checks: the errors and warnings of a stage's log, found line by line as Odoo's runbot finds them (its
 * `_re_error` and `_re_warning`), each error kept with the traceback that follows it, then cleaned of what differs
 * between two runs of the same failure and fingerprinted, so that the same error groups across builds
 * (GET /builds/errors).
 */

/** An Odoo log record's start: `2026-12-02 10:00:00,123 4242 `, the date, the time with milliseconds, the pid. */
const ODOO_RECORD_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \d+ /;
const TRACEBACK_START = /^Traceback \(most recent call last\):\s*$/;

/** Odoo's ERROR and CRITICAL records (`<date> <time> <pid> ERROR <db> <logger>: ...`), and Python's tracebacks. */
export const DEFAULT_ERROR_PATTERNS = [
  String.raw`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \d+ (?:ERROR|CRITICAL) `,
  String.raw`^Traceback \(most recent call last\):\s*$`,
];
/** Odoo's WARNING records. */
export const DEFAULT_WARNING_PATTERNS = [String.raw`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \d+ WARNING `];

export interface LogCheckRules {
  errors: readonly RegExp[];
  warnings: readonly RegExp[];
}

export interface LogCheckResult {
  errors: number;
  warnings: number;
  /** Each error's text: its line and the lines that follow it up to the next log record (its traceback). */
  entries: string[];
}

/** At most this much of one error is kept: a traceback of a recursion can run for thousands of lines. */
const MAX_ENTRY_LINES = 200;
const MAX_ENTRY_CHARS = 16_000;
/** At most this many errors of one stage are kept for GET /builds/errors; all of them are counted. */
export const MAX_ENTRIES_PER_STAGE = 50;
/** A line longer than this is checked by its beginning only (a minified bundle printed whole). */
const MAX_LINE_CHARS = 8_000;

/**
 * Checks a log as it comes, line by line, in pieces of any size: `feed` what was read, `end` once it is over.
 * A line is an error when an `errors` pattern matches it, else a warning when a `warnings` pattern does. An
 * error takes the lines after it until the next Odoo log record, an error or a warning; a traceback right after
 * an error record is that error's (Odoo logs `ERROR ...: message` then the traceback), not a second one.
 */
export class LogChecker {
  private rest = "";
  private errors = 0;
  private warnings = 0;
  private readonly entries: string[] = [];
  private current: { lines: string[]; chars: number; hasTraceback: boolean } | null = null;

  constructor(private readonly rules: LogCheckRules) {}

  feed(text: string): void {
    const lines = (this.rest + text).split("\n");
    this.rest = lines.pop() ?? "";
    for (const line of lines) this.line(line);
    // A line without its end yet, too long to wait for: checked by its beginning.
    if (this.rest.length > MAX_LINE_CHARS) {
      this.line(this.rest);
      this.rest = "";
    }
  }

  end(): LogCheckResult {
    if (this.rest !== "") this.line(this.rest);
    this.rest = "";
    this.close();
    return { errors: this.errors, warnings: this.warnings, entries: [...this.entries] };
  }

  private line(raw: string): void {
    const line = (raw.endsWith("\r") ? raw.slice(0, -1) : raw).slice(0, MAX_LINE_CHARS);
    if (this.rules.errors.some((pattern) => pattern.test(line))) {
      if (this.current && !this.current.hasTraceback && TRACEBACK_START.test(line)) {
        this.current.hasTraceback = true;
        this.append(line);
        return;
      }
      this.close();
      this.errors += 1;
      this.current = { lines: [line], chars: line.length, hasTraceback: TRACEBACK_START.test(line) };
      return;
    }
    if (this.rules.warnings.some((pattern) => pattern.test(line))) {
      this.close();
      this.warnings += 1;
      return;
    }
    if (ODOO_RECORD_START.test(line)) {
      this.close();
      return;
    }
    if (this.current) this.append(line);
  }

  private append(line: string): void {
    const current = this.current;
    if (!current || current.lines.length >= MAX_ENTRY_LINES || current.chars >= MAX_ENTRY_CHARS) return;
    current.lines.push(line);
    current.chars += line.length + 1;
  }

  private close(): void {
    if (!this.current) return;
    // Blank lines at the end belong to nothing.
    while (this.current.lines.length > 1 && this.current.lines.at(-1)?.trim() === "") this.current.lines.pop();
    if (this.entries.length < MAX_ENTRIES_PER_STAGE)
      this.entries.push(this.current.lines.join("\n").slice(0, MAX_ENTRY_CHARS));
    this.current = null;
  }
}

/** Compiles the configured patterns (validated at start, so they compile). */
export function compileLogCheckRules(config: {
  errors: readonly string[];
  warnings: readonly string[];
}): LogCheckRules {
  return {
    errors: config.errors.map((pattern) => new RegExp(pattern)),
    warnings: config.warnings.map((pattern) => new RegExp(pattern)),
  };
}

/** Checks a log file from the byte `offset` on, reading it in pieces so that a log of megabytes is never held whole. */
export async function checkLogFile(file: string, offset: number, rules: LogCheckRules): Promise<LogCheckResult> {
  const checker = new LogChecker(rules);
  let stream: fs.ReadStream;
  try {
    stream = fs.createReadStream(file, { start: offset, encoding: "utf8", highWaterMark: 64 * 1024 });
    for await (const chunk of stream) checker.feed(chunk as string);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return checker.end();
}

/**
 * An error's text without what differs between two runs of the same failure: the build's own paths and id, dates
 * and times, hexadecimal ids and addresses, line numbers and other numbers (the pid, durations, record ids).
 */
export function cleanErrorText(text: string, build: { id: string; paths: readonly string[] }): string {
  let cleaned = text;
  for (const folder of [...build.paths].filter(Boolean).sort((a, b) => b.length - a.length))
    cleaned = cleaned.replaceAll(folder, "<build>");
  if (build.id) cleaned = cleaned.replaceAll(build.id, "<build_id>");
  return cleaned
    .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?(?:Z|[+-]\d\d:?\d\d)?/g, "<date>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>")
    .replace(/\b0x[0-9a-f]+\b/gi, "<hex>")
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, "<hex>")
    .replace(/\bline \d+/g, "line <n>")
    .replace(/\d+/g, "<n>")
    .replace(/[ \t]+$/gm, "");
}

/** The fingerprint of a cleaned error: what groups it across builds. */
export function fingerprintOf(cleaned: string): string {
  return crypto.createHash("sha256").update(cleaned).digest("hex").slice(0, 32);
}

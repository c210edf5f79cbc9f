import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addDays, addDaysClamped, daysBetween, todayIn } from "@/lib/rates/dates";

describe("todayIn", () => {
  it("gives the calendar date of the instant in the time zone", () => {
    const instant = new Date("2026-11-23T03:30:00Z");
    expect(todayIn("UTC", instant)).toBe("2026-11-23");
    expect(todayIn("America/Caracas", instant)).toBe("2026-11-22"); // 23:30 the evening before, at UTC-4
    expect(todayIn("Pacific/Kiritimati", new Date("2026-11-23T10:00:00Z"))).toBe("2026-11-24"); // UTC+14
  });

  it("follows daylight-saving time of the zone", () => {
    // New York switches to EDT (UTC-4) at 2026-03-08 07:00 UTC.
    expect(todayIn("America/New_York", new Date("2026-03-08T04:30:00Z"))).toBe("2026-03-07"); // 23:30 EST
    expect(todayIn("America/New_York", new Date("2026-03-09T03:30:00Z"))).toBe("2026-03-08"); // 23:30 EDT
  });
});

describe("date arithmetic", () => {
  // In a zone whose clocks skipped midnight (Brazil, 2018-11-04 00:00 -> 01:00), arithmetic on local
  // midnights loses or repeats a day; the helpers must not depend on the process's zone.
  const originalTz = process.env.TZ;
  beforeEach(() => {
    process.env.TZ = "America/Sao_Paulo";
  });
  afterEach(() => {
    if (originalTz === undefined) delete process.env.TZ;
    else process.env.TZ = originalTz;
  });

  it("adds and subtracts days across DST changes, months, years and leap days", () => {
    expect(addDays("2018-11-03", 1)).toBe("2018-11-04");
    expect(addDays("2018-11-04", 1)).toBe("2018-11-05");
    expect(addDays("2018-11-05", -2)).toBe("2018-11-03");
    expect(addDays("2026-03-07", 2)).toBe("2026-03-09");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2026-11-23", -30)).toBe("2026-10-24");
    expect(addDays("2026-11-23", 0)).toBe("2026-11-23");
  });

  it("keeps years below 100 as written (Date.UTC would map them to 19xx)", () => {
    expect(addDays("0050-01-01", -1)).toBe("0049-12-31");
    expect(daysBetween("0099-12-31", "0100-01-01")).toBe(1);
  });

  it("counts whole days between dates", () => {
    expect(daysBetween("2026-11-23", "2026-11-23")).toBe(0);
    expect(daysBetween("2018-11-01", "2018-11-10")).toBe(9);
    expect(daysBetween("2026-03-01", "2026-04-01")).toBe(31);
    expect(daysBetween("2026-11-24", "2026-11-23")).toBe(-1);
    expect(daysBetween("2016-11-23", "2026-11-23")).toBe(3652);
  });

  it("rejects text that is not a calendar date", () => {
    expect(() => addDays("2026-02-30", 1)).toThrow(RangeError);
    expect(() => addDays("abc", 1)).toThrow(RangeError);
    expect(() => daysBetween("2026-13-01", "2026-11-23")).toThrow(RangeError);
  });

  it("stops at the four-digit years when clamped, and throws when not", () => {
    expect(() => addDays("0000-01-05", -30)).toThrow(RangeError);
    expect(addDaysClamped("0000-01-05", -30)).toBe("0000-01-01");
    expect(addDaysClamped("9999-12-20", 30)).toBe("9999-12-31");
    expect(addDaysClamped("2026-11-23", -30)).toBe("2026-10-24");
  });
});

import { describe, expect, it } from "vitest";
import { assessFreshness, type FreshnessRules } from "@/lib/rates/freshness";

// Caracas is UTC-4 all year (no daylight saving): 17:00 there is 21:00 UTC.
const rules: FreshnessRules = { timeZone: "America/Caracas", staleAfter: "17:00", holidays: new Set() };
const at = (utc: string) => new Date(utc);

describe("assessFreshness (lib/rates/freshness.ts)", () => {
  it("on a business day before the publication hour, expects today's value date (published yesterday)", () => {
    // Wednesday 2026-11-18, 16:59 in Caracas: Tuesday's publication was for Wednesday.
    expect(assessFreshness("2026-11-18", at("2026-11-18T20:59:00Z"), rules)).toEqual({
      expected_value_date: "2026-11-18",
      stale: false,
      business_days_missed: 0,
    });
  });

  it("after the publication hour, expects the next business day's value date", () => {
    // Wednesday 17:00 in Caracas: Thursday's value date is due.
    expect(assessFreshness("2026-11-18", at("2026-11-18T21:00:00Z"), rules)).toEqual({
      expected_value_date: "2026-11-19",
      stale: true,
      business_days_missed: 1,
    });
    expect(assessFreshness("2026-11-19", at("2026-11-18T21:00:00Z"), rules).stale).toBe(false);
  });

  it("over a weekend, Friday's publication is for Monday, and nothing more is due until Monday afternoon", () => {
    // Friday 2026-11-20 18:00, Saturday, Sunday, Monday 10:00 in Caracas.
    for (const now of [
      "2026-11-20T22:00:00Z",
      "2026-11-21T15:00:00Z",
      "2026-11-22T23:00:00Z",
      "2026-11-23T14:00:00Z",
    ]) {
      expect(assessFreshness("2026-11-23", at(now), rules), now).toEqual({
        expected_value_date: "2026-11-23",
        stale: false,
        business_days_missed: 0,
      });
    }
  });

  it("counts the business days missed, weekends and listed holidays excluded", () => {
    // Newest Monday 2026-11-09; on Friday 2026-11-20 after 17:00 Monday 23 is due: 10 business days missed.
    expect(assessFreshness("2026-11-09", at("2026-11-20T22:00:00Z"), rules).business_days_missed).toBe(10);
    const withHolidays = { ...rules, holidays: new Set(["2026-11-11", "2026-11-23"]) };
    expect(assessFreshness("2026-11-09", at("2026-11-20T22:00:00Z"), withHolidays)).toEqual({
      expected_value_date: "2026-11-24",
      stale: true,
      business_days_missed: 9,
    });
  });

  it("a holiday is not a publication day: the day before it publishes for the day after", () => {
    const withHoliday = { ...rules, holidays: new Set(["2026-12-25"]) };
    // Thursday 24 December after 17:00: the next business day is Monday 28 (25 is a holiday, then a weekend).
    expect(assessFreshness("2026-12-24", at("2026-12-24T22:00:00Z"), withHoliday).expected_value_date).toBe(
      "2026-12-28",
    );
    // Friday 25 December, evening: still Monday 28, published on the 24th.
    expect(assessFreshness("2026-12-28", at("2026-12-25T23:00:00Z"), withHoliday).stale).toBe(false);
  });

  it("with no rate stored at all, is stale without a count", () => {
    expect(assessFreshness(undefined, at("2026-11-18T12:00:00Z"), rules)).toMatchObject({
      stale: true,
      business_days_missed: null,
    });
  });
});

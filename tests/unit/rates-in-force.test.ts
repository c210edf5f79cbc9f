import { describe, expect, it } from "vitest";
import { ratesToday, standingOf, valueDateInForce } from "@/lib/rates/in-force";

// Value dates as the bank publishes them around the first week of December 2026: Monday 30 November to Friday
// 4 December, then Monday 7 December (published on Friday 4 December in the afternoon). Tuesday 8 December is a
// holiday in this example (no value date), so Monday's rate stays in force until Wednesday 9 December.
const VALUE_DATES = ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04", "2026-12-07", "2026-12-09"];

/** The rule as a shop reads it: what is today's rate, and what is published ahead, on `today`. */
function rulesOn(today: string, published: string[]) {
  const inForce = valueDateInForce(published, today);
  return {
    inForce,
    next: published.filter((date) => standingOf(date, today, inForce) === "next"),
  };
}

describe("which rate is today's (lib/rates/in-force.ts)", () => {
  it("on a weekday afternoon: today's value date is in force, tomorrow's, just published, is the next one", () => {
    // Tuesday 1 December at 19:25 in Caracas: the bank has published Wednesday 2 December's rate.
    expect(rulesOn("2026-12-01", VALUE_DATES.slice(0, 3))).toEqual({ inForce: "2026-12-01", next: ["2026-12-02"] });
    expect(standingOf("2026-11-30", "2026-12-01", "2026-12-01")).toBe("earlier");
  });

  it("before the afternoon's publication: today's rate and nothing ahead", () => {
    expect(rulesOn("2026-12-01", VALUE_DATES.slice(0, 2))).toEqual({ inForce: "2026-12-01", next: [] });
  });

  it("Friday's publication seen on a Saturday and a Sunday: Friday's rate in force, Monday's the next one", () => {
    const published = VALUE_DATES.slice(0, 6);
    for (const weekend of ["2026-12-05", "2026-12-06"]) {
      expect(rulesOn(weekend, published)).toEqual({ inForce: "2026-12-04", next: ["2026-12-07"] });
    }
    // Monday: the rate published on Friday comes into force.
    expect(rulesOn("2026-12-07", published)).toEqual({ inForce: "2026-12-07", next: [] });
  });

  it("a holiday: the last business day's rate stays in force, whatever is published ahead", () => {
    expect(rulesOn("2026-12-08", VALUE_DATES)).toEqual({ inForce: "2026-12-07", next: ["2026-12-09"] });
  });

  it("no rate on or before the day: none in force, even with rates published ahead", () => {
    expect(rulesOn("2026-11-29", VALUE_DATES)).toEqual({ inForce: undefined, next: VALUE_DATES });
    expect(valueDateInForce([], "2026-12-01")).toBeUndefined();
  });

  it("takes value dates in any order", () => {
    expect(valueDateInForce(["2026-12-03", "2026-11-30", "2026-12-09", "2026-12-01"], "2026-12-05")).toBe("2026-12-03");
  });

  it("counts today in Caracas (UTC-4): 23:30 on 1 December there is 03:30 UTC on 2 December", () => {
    expect(ratesToday(new Date("2026-12-02T03:30:00Z"))).toBe("2026-12-01");
    expect(ratesToday(new Date("2026-12-02T04:00:00Z"))).toBe("2026-12-02");
  });
});

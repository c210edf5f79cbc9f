import { describe, expect, it } from "vitest";
import { bankValueDate } from "../support/bcv-server";

// Caracas is UTC-4 all year: 17:00 there is 21:00 UTC.
const at = (utc: string) => new Date(utc);

describe("the central bank stand-in's value date, as `npm run bcv:serve` shows it", () => {
  it("is today's on a business day until 17:00 in Caracas, the next business day's from then", () => {
    expect(bankValueDate(at("2026-11-26T20:59:00Z"))).toBe("2026-11-26"); // Thursday 16:59
    expect(bankValueDate(at("2026-11-26T21:00:00Z"))).toBe("2026-11-27"); // Thursday 17:00
    expect(bankValueDate(at("2026-11-27T03:30:00Z"))).toBe("2026-11-27"); // Thursday 23:30 in Caracas
  });

  it("jumps the weekend: Friday evening, Saturday and Sunday show Monday's", () => {
    expect(bankValueDate(at("2026-11-27T20:00:00Z"))).toBe("2026-11-27"); // Friday 16:00
    expect(bankValueDate(at("2026-11-27T22:00:00Z"))).toBe("2026-11-30"); // Friday 18:00
    expect(bankValueDate(at("2026-11-28T15:00:00Z"))).toBe("2026-11-30"); // Saturday
    expect(bankValueDate(at("2026-11-30T01:00:00Z"))).toBe("2026-11-30"); // Sunday 21:00 in Caracas
    expect(bankValueDate(at("2026-11-30T14:00:00Z"))).toBe("2026-11-30"); // Monday 10:00
  });
});

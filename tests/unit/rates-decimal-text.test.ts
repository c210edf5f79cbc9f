import { describe, expect, it } from "vitest";
import { decimalText, withDecimals } from "@/lib/rates/decimal-text";

describe("decimal text for the rate reads (decimals=string)", () => {
  it("writes a number as the shortest text that reads back as it, never with an exponent", () => {
    expect(decimalText(236.4587)).toBe("236.4587");
    expect(decimalText(200)).toBe("200");
    expect(decimalText(-0.4486)).toBe("-0.4486");
    expect(decimalText(0.00000015)).toBe("0.00000015");
    expect(decimalText(-1e-7)).toBe("-0.0000001");
    expect(decimalText(12345678.12345678)).toBe("12345678.12345678");
  });

  it("turns every number of an answer into text, and leaves the rest as it is; numbers stay without string", () => {
    const answer = {
      dollar: 236.0101,
      date: "2026-12-02",
      in_force: true,
      published_at: null,
      rates: { EUR: 272.44113501 },
      previous: { date: "2026-12-01", dollar: 200 },
      changes: { EUR: { previous_date: null, previous: null, change: null, change_percent: null } },
    };
    expect(withDecimals({ rates: [answer] }, "string")).toEqual({
      rates: [
        {
          dollar: "236.0101",
          date: "2026-12-02",
          in_force: true,
          published_at: null,
          rates: { EUR: "272.44113501" },
          previous: { date: "2026-12-01", dollar: "200" },
          changes: { EUR: { previous_date: null, previous: null, change: null, change_percent: null } },
        },
      ],
    });
    expect(withDecimals(answer, "number")).toBe(answer);
    expect(withDecimals(answer, undefined)).toBe(answer);
  });
});

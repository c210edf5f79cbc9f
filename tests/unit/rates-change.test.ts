import { describe, expect, it } from "vitest";
import { changeSince } from "@/lib/rates/change";

describe("changeSince (lib/rates/change.ts)", () => {
  it("gives the exact difference of the published decimals, no binary rounding on the way", () => {
    // 0.3 - 0.1 in binary floating point is 0.19999999999999998.
    expect(changeSince("0.1", "0.3").change).toBe(0.2);
    expect(changeSince("104.80258234", "103.47876323").change).toBe(-1.32381911);
  });

  it("rounds the percentage to 4 decimals, halves away from zero", () => {
    // From 100, a change of 0.00005 is 0.00005 %: a half of the last decimal kept.
    expect(changeSince("100", "100.00005").change_percent).toBe(0.0001);
    expect(changeSince("100", "99.99995").change_percent).toBe(-0.0001);
    expect(changeSince("100", "100.00004").change_percent).toBe(0);
    expect(changeSince("3", "4").change_percent).toBe(33.3333);
    expect(changeSince("3", "5").change_percent).toBe(66.6667);
  });
});

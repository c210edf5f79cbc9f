import { describe, expect, it } from "vitest";
import { formatRateText, minorUnitDigits, parseAmount, roundDecimal } from "@/components/rates/amount";

describe("the converter's amount: Venezuelan and international writing", () => {
  it.each([
    ["1.234,56", "1234.56"],
    ["1234,56", "1234.56"],
    ["1,234.56", "1234.56"],
    ["1234.56", "1234.56"],
    ["1 234,56", "1234.56"],
    ["1.234.567", "1234567"],
    ["1,234,567", "1234567"],
    ["1.234.567,5", "1234567.5"],
    ["100", "100"],
    ["0,5", "0.5"],
    [",5", "0.5"],
    ["007", "7"],
    ["1.50", "1.5"],
    ["1.234", "1.234"],
    ["-5", "-5"],
  ])("reads %s as %s", (input, expected) => {
    expect(parseAmount(input)).toBe(expected);
  });

  it.each(["", "abc", "1,23,4.5", "1.2.3,4,5", "12.34.5", "1e5", "$5", "1,234.5.6"])("refuses %j", (input) => {
    expect(parseAmount(input)).toBeUndefined();
  });
});

describe("rounding money and rates", () => {
  it("rounds half up on the decimal text, carrying", () => {
    expect(roundDecimal("19329.964", 2)).toBe("19329.96");
    expect(roundDecimal("2.675", 2)).toBe("2.68");
    expect(roundDecimal("9.995", 2)).toBe("10.00");
    expect(roundDecimal("99.5", 0)).toBe("100");
    expect(roundDecimal("0.004", 2)).toBe("0.00");
    expect(roundDecimal("5", 2)).toBe("5.00");
  });

  it("knows each currency's minor unit", () => {
    expect(minorUnitDigits("VES")).toBe(2);
    expect(minorUnitDigits("USD")).toBe(2);
    expect(minorUnitDigits("JPY")).toBe(0);
  });

  it("shows a rate with the bank's decimals, at most 8, at least 2", () => {
    expect(formatRateText("197.2456")).toBe("197.2456");
    expect(formatRateText("228.09086692")).toBe("228.09086692");
    expect(formatRateText("21.266360733416")).toBe("21.26636073");
    expect(formatRateText("0.005069812345")).toBe("0.00506981");
    expect(formatRateText("1")).toBe("1.00");
    expect(formatRateText("1234.5")).toBe("1,234.50");
  });
});

import { describe, expect, it } from "vitest";
import {
  formatRateText,
  groupDigits,
  minorUnitDigits,
  parseAmount,
  roundDecimal,
  withoutCurrencyMarks,
} from "@/components/rates/amount";

describe("the converter's amount, read as the person's language writes it", () => {
  describe("a currency sign or code before or after the number is read and dropped", () => {
    it.each([
      ["$ 3.99", "3.99", "en"],
      ["US$ 3,99", "3.99", "es"],
      ["3,99 $", "3.99", "es"],
      ["USD 10", "10", "es"],
      ["Bs. 100", "100", "es"],
      ["100 Bs", "100", "es"],
      ["Bs.S 1.250,50", "1250.5", "es"],
      ["€4,50", "4.5", "es"],
      ["10 eur", "10", "en"],
    ] as const)("%s", (typed, value, language) => {
      expect(parseAmount(typed, language)?.value).toBe(value);
    });

    it("keeps a sign before the mark, for the negative amount's own message", () => {
      expect(withoutCurrencyMarks("-$5")).toBe("-5");
      expect(parseAmount("-$ 5", "en")?.value).toBe("-5");
    });

    it("leaves the rest as typed, to be echoed back as written", () => {
      expect(withoutCurrencyMarks("  Bs. 1.250,50 ")).toBe("1.250,50");
      expect(withoutCurrencyMarks("1.250,50")).toBe("1.250,50");
    });

    it("reads no other letters", () => {
      expect(parseAmount("COP 10", "es")).toBeUndefined();
      expect(parseAmount("10 bolos", "es")).toBeUndefined();
    });
  });

  describe("both marks: the last one is the decimal mark, in either language", () => {
    it.each(["es", "en"] as const)("%s", (language) => {
      expect(parseAmount("1.234,56", language)).toEqual({ value: "1234.56", reading: { decimalMark: "," } });
      expect(parseAmount("1,234.56", language)).toEqual({ value: "1234.56", reading: { decimalMark: "." } });
      expect(parseAmount("1.234.567,5", language)).toEqual({ value: "1234567.5", reading: { decimalMark: "," } });
      expect(parseAmount("1,234,567.5", language)).toEqual({ value: "1234567.5", reading: { decimalMark: "." } });
    });
  });

  describe("one mark repeated: it groups thousands, in either language", () => {
    it.each(["es", "en"] as const)("%s", (language) => {
      expect(parseAmount("1.234.567", language)).toEqual({ value: "1234567" });
      expect(parseAmount("1,234,567", language)).toEqual({ value: "1234567" });
    });
  });

  describe("one mark once, three digits after it: the language decides, and the result says how", () => {
    it.each([
      ["es", "50.000", { value: "50000", reading: { groupMark: "." } }],
      ["es", "50,000", { value: "50", written: "50.000", reading: { decimalMark: "," } }],
      ["es", "1.500", { value: "1500", reading: { groupMark: "." } }],
      ["en", "50,000", { value: "50000", reading: { groupMark: "," } }],
      ["en", "50.000", { value: "50", written: "50.000", reading: { decimalMark: "." } }],
      ["en", "1.500", { value: "1.5", written: "1.500", reading: { decimalMark: "." } }],
    ] as const)("in %s, %s", (language, input, expected) => {
      expect(parseAmount(input, language)).toEqual(expected);
    });

    it("a leading zero cannot group: 0.500 and ,500 are decimals", () => {
      expect(parseAmount("0.500", "es")).toEqual({ value: "0.5", written: "0.500", reading: { decimalMark: "." } });
      expect(parseAmount(",500", "en")).toEqual({ value: "0.5", written: "0.500", reading: { decimalMark: "," } });
    });

    it("four digits before a mark the language groups with is refused rather than guessed", () => {
      expect(parseAmount("1234.567", "es")).toBeUndefined();
      expect(parseAmount("1234,567", "en")).toBeUndefined();
      expect(parseAmount("1234,567", "es")).toEqual({ value: "1234.567" });
      expect(parseAmount("1234.567", "en")).toEqual({ value: "1234.567" });
    });
  });

  describe("one mark once, other than three digits after it: a decimal mark", () => {
    it.each([
      ["35,50", "35.5"],
      ["0,25", "0.25"],
      ["1234,5", "1234.5"],
      ["1.5", "1.5"],
      ["1234.56", "1234.56"],
      ["1.50", "1.5"],
      ["12.3456", "12.3456"],
    ])("%s is %s in both languages", (input, value) => {
      expect(parseAmount(input, "es")?.value).toBe(value);
      expect(parseAmount(input, "en")?.value).toBe(value);
    });

    it("says how it was read when the mark is not the language's own decimal mark", () => {
      // The decimals as typed are kept apart, for the echo: "35,50", not "35,5".
      expect(parseAmount("35,50", "es")).toEqual({ value: "35.5", written: "35.50" });
      expect(parseAmount("35,50", "en")).toEqual({ value: "35.5", written: "35.50", reading: { decimalMark: "," } });
      expect(parseAmount("1.5", "en")).toEqual({ value: "1.5" });
      expect(parseAmount("1.5", "es")).toEqual({ value: "1.5", reading: { decimalMark: "." } });
    });
  });

  it.each(["es", "en"] as const)("no mark, spaces, zeros and signs in %s", (language) => {
    expect(parseAmount("100", language)).toEqual({ value: "100" });
    expect(parseAmount("007", language)).toEqual({ value: "7" });
    expect(parseAmount("1 234 567", language)).toEqual({ value: "1234567" });
    expect(parseAmount("1 234,56", language)?.value).toBe("1234.56");
    expect(parseAmount("-5", language)).toEqual({ value: "-5" });
  });

  it.each(["", "abc", "1,23,4.5", "1.2.3,4,5", "12.34.5", "1e5", "$", "COP5", "1,234.5.6", "1.234,5.6", "1.23.456"])(
    "refuses %j in both languages",
    (input) => {
      expect(parseAmount(input, "es")).toBeUndefined();
      expect(parseAmount(input, "en")).toBeUndefined();
    },
  );
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

  it("shows a rate by the rule for people: 4 decimals, 4 significant digits below 1", () => {
    expect(formatRateText("197.2456", "en")).toBe("197.2456");
    expect(formatRateText("228.09086692", "en")).toBe("228.0909");
    expect(formatRateText("21.266360733416", "en")).toBe("21.2664");
    expect(formatRateText("0.005069812345", "en")).toBe("0.00507");
    expect(formatRateText("1", "en")).toBe("1.0000");
    expect(formatRateText("1234.5", "en")).toBe("1,234.5000");
  });

  it("writes rates and amounts as Spanish does: decimal comma, dots between thousands", () => {
    expect(formatRateText("236.4587", "es")).toBe("236,4587");
    expect(formatRateText("1234.5", "es")).toBe("1.234,5000");
    expect(groupDigits("1234567.89", "es")).toBe("1.234.567,89");
    expect(groupDigits("1234567.89", "en")).toBe("1,234,567.89");
    expect(groupDigits("50000", "es")).toBe("50.000");
  });
});

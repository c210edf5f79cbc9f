import { describe, expect, it } from "vitest";
import {
  BOLIVAR_SYMBOL,
  formatBolivars,
  formatChange,
  formatRate,
  RATE_DISPLAY_DECIMALS,
  withCurrency,
} from "@/components/ui/format";

describe("bolívares and rates as Venezuelan shops write them", () => {
  it("writes the bolívar as Bs. before the number in both languages, other currencies by their code after", () => {
    expect(BOLIVAR_SYMBOL).toBe("Bs.");
    expect(withCurrency("2.950,13", "VES")).toBe("Bs. 2.950,13");
    expect(withCurrency("3,99", "USD")).toBe("3,99 USD");
    expect(formatBolivars("2950.125", "es")).toBe("Bs. 2.950,13");
    expect(formatBolivars(23645.87, "en")).toBe("Bs. 23,645.87");
    expect(formatBolivars("100", "es")).toBe("Bs. 100,00");
  });

  it("shows every rate of 1 or more with exactly 4 decimals, rounded from the bank's 8", () => {
    expect(RATE_DISPLAY_DECIMALS).toBe(4);
    // The dollar (4 significant decimals) and the euro (8) now read alike.
    expect(formatRate("236.45870000", "es")).toBe("236,4587");
    expect(formatRate("275.12345678", "es")).toBe("275,1235");
    expect(formatRate(236.01, "en")).toBe("236.0100");
    expect(formatRate("1234.5", "es")).toBe("1.234,5000");
    // Decimal text is rounded exactly, with no float between: 0.00005 rounds half away from zero.
    expect(formatRate("100.00005", "en")).toBe("100.0001");
    expect(formatRate("123456789012.99999999", "es")).toBe("123.456.789.013,0000");
  });

  it("keeps 4 significant digits of a rate below 1 (an inverse or cross rate), at most 8 decimals", () => {
    expect(formatRate("0.004229187", "es")).toBe("0,004229");
    expect(formatRate("0.5", "en")).toBe("0.5");
    expect(formatRate("0.000000001", "en")).toBe("0");
    expect(formatRate("0", "en")).toBe("0.0000");
  });

  it("signs a change with the rate's decimals", () => {
    expect(formatChange(0.44856, "es")).toBe("+0,4486");
    expect(formatChange(-1.25, "en")).toBe("-1.2500");
    expect(formatChange(0, "en")).toBe("0.0000");
  });
});

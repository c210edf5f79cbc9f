import { describe, expect, it } from "vitest";
import { multiplyDecimal } from "@/components/rates/amount";
import { parsePastedPrices } from "@/components/rates/price-list-items";

describe("a price list pasted as text", () => {
  it("reads a spreadsheet's cells, a chat's lines and the currency however it is written", () => {
    const pasted = [
      "Harina PAN\t1,20",
      "Queso blanco (kg); 4,50; EUR",
      "Aceite 1 litro 3,75 USD",
      "Café 500 g $2,10",
      "Pan canilla 0,80€",
      "",
      "Azúcar 1.250",
    ].join("\n");
    expect(parsePastedPrices(pasted, "es")).toEqual({
      items: [
        { name: "Harina PAN", price: "1.2", currency: "USD" },
        { name: "Queso blanco (kg)", price: "4.5", currency: "EUR" },
        { name: "Aceite 1 litro", price: "3.75", currency: "USD" },
        { name: "Café 500 g", price: "2.1", currency: "USD" },
        { name: "Pan canilla", price: "0.8", currency: "EUR" },
        // Spanish: the dot groups thousands.
        { name: "Azúcar", price: "1250", currency: "USD" },
      ],
      unreadable: [],
      // The one price an English reader would read otherwise.
      readings: [{ item: "Azúcar", text: "1.250", parsed: { value: "1250", reading: { groupMark: "." } } }],
    });
    expect(parsePastedPrices("Azúcar 1,250\nSugar\t1.5", "en").items).toEqual([
      { name: "Azúcar", price: "1250", currency: "USD" },
      { name: "Sugar", price: "1.5", currency: "USD" },
    ]);
  });

  it("returns apart, as written, the lines that say no price", () => {
    expect(
      parsePastedPrices("Harina PAN\nArroz; gratis\nLeche; 0\nHuevos 2,5 BTC\nPasta; 1; USD; extra", "es"),
    ).toEqual({
      items: [],
      unreadable: ["Harina PAN", "Arroz; gratis", "Leche; 0", "Huevos 2,5 BTC", "Pasta; 1; USD; extra"],
      readings: [],
    });
  });

  it("names the prices that could be read two ways, as written and as read in the page's language", () => {
    const pasted = "Azúcar 1.250\nArroz; 1,250; EUR\nCafé $1.234,50\nPan 0,80€\nLeche 2.5";
    // English: "1.250" is one and a quarter, "1,250" twelve hundred and fifty; "0,80" has a decimal comma.
    expect(parsePastedPrices(pasted, "en").readings).toEqual([
      { item: "Azúcar", text: "1.250", parsed: { value: "1.25", written: "1.250", reading: { decimalMark: "." } } },
      { item: "Arroz", text: "1,250", parsed: { value: "1250", reading: { groupMark: "," } } },
      {
        item: "Café",
        text: "1.234,50",
        parsed: { value: "1234.5", written: "1234.50", reading: { decimalMark: "," } },
      },
      { item: "Pan", text: "0,80", parsed: { value: "0.8", written: "0.80", reading: { decimalMark: "," } } },
    ]);
    // Spanish: the other way round; "2.5" is a decimal dot, which a Spanish reader would not write.
    expect(parsePastedPrices(pasted, "es").readings).toEqual([
      { item: "Azúcar", text: "1.250", parsed: { value: "1250", reading: { groupMark: "." } } },
      { item: "Arroz", text: "1,250", parsed: { value: "1.25", written: "1.250", reading: { decimalMark: "," } } },
      {
        item: "Café",
        text: "1.234,50",
        parsed: { value: "1234.5", written: "1234.50", reading: { decimalMark: "," } },
      },
      { item: "Leche", text: "2.5", parsed: { value: "2.5", reading: { decimalMark: "." } } },
    ]);
  });
});

describe("multiplyDecimal", () => {
  it("multiplies decimal texts exactly", () => {
    expect(multiplyDecimal("1.2", "236.4587")).toBe("283.75044");
    expect(multiplyDecimal("100", "197.2456")).toBe("19724.56");
    expect(multiplyDecimal("0.1", "0.2")).toBe("0.02");
    expect(multiplyDecimal("1250", "4")).toBe("5000");
    expect(multiplyDecimal("2.5", "0.4")).toBe("1");
  });
});

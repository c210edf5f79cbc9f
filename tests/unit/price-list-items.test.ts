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
    });
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

/**
 * How the rate reads write decimal values: JSON numbers (`236.4587`, the default, deprecated) or, with
 * `decimals=string`, decimal text (`"236.4587"`), as GET /convert writes them. A JSON number is read as binary
 * floating point by most clients; text keeps the value exact in any of them.
 */
export type DecimalsParameter = "number" | "string";

/**
 * Beyond any value the rate reads write: rates have at most 8 decimals (the bank's), changes the longer of two
 * rates' and percentages 4 (lib/rates/change.ts).
 */
const MAX_DECIMALS = 12;

/**
 * A rate read's answer (one rate, or a history) with every number written as decimal text when `decimals` is
 * "string"; unchanged otherwise. Every number of these answers is a decimal value (rates, changes, percentages):
 * none counts anything.
 */
export function withDecimals(answer: unknown, decimals: DecimalsParameter | undefined): unknown {
  return decimals === "string" ? numbersAsText(answer) : answer;
}

function numbersAsText(value: unknown): unknown {
  if (typeof value === "number") return decimalText(value);
  if (Array.isArray(value)) return value.map(numbersAsText);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, numbersAsText(field)]));
  }
  return value;
}

/**
 * The shortest text that reads back as the same number (every stored digit: a rate's 8 decimals and up to
 * 15 significant digits round-trip exactly), without the exponent JavaScript writes below 1e-6.
 */
export function decimalText(value: number): string {
  const text = String(value);
  if (!text.includes("e")) return text;
  return value.toFixed(MAX_DECIMALS).replace(/\.?0+$/, "");
}

import { describe, expect, it } from "vitest";
import { pickLocale } from "@/i18n/locale";

describe("the pages' language (i18n/request.ts)", () => {
  it("is Spanish when the browser's first language is Spanish of any country", () => {
    expect(pickLocale(undefined, "es-VE,es;q=0.9,en;q=0.8")).toBe("es");
    expect(pickLocale(undefined, "es")).toBe("es");
    expect(pickLocale(undefined, "es-419")).toBe("es");
    expect(pickLocale(undefined, "en;q=0.5, ES-ve")).toBe("es");
  });

  it("is English otherwise, also when Spanish comes second or nothing is said", () => {
    expect(pickLocale(undefined, "en-US,en;q=0.9,es;q=0.8")).toBe("en");
    expect(pickLocale(undefined, "pt-BR,es;q=0.9")).toBe("en");
    expect(pickLocale(undefined, undefined)).toBe("en");
    expect(pickLocale(undefined, "*")).toBe("en");
    expect(pickLocale(undefined, "")).toBe("en");
  });

  it("is the one chosen in the header (the cookie) whatever the browser says; an unknown one is ignored", () => {
    expect(pickLocale("es", "en-US")).toBe("es");
    expect(pickLocale("en", "es-VE")).toBe("en");
    expect(pickLocale("fr", "es-VE")).toBe("es");
  });
});

import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { calendarDateOf, parseBcvPage, parseCommaDecimal, RateSourceError } from "@/lib/rates/bcv-client";
import { FIXTURE_PAGE } from "../support/bcv-server";

const fixture = fs.readFileSync(FIXTURE_PAGE, "utf8");

async function parseFailure(html: string): Promise<RateSourceError> {
  try {
    await parseBcvPage(html);
  } catch (error) {
    return error as RateSourceError;
  }
  throw new Error("the page was parsed");
}

describe("parseBcvPage", () => {
  it("reads the dollar value with every decimal and the Fecha Valor of the fixture", async () => {
    expect(await parseBcvPage(fixture)).toEqual({ dollar: "236.45870000", valueDate: "2026-11-23" });
  });

  it("reads the dollar block, not the other currencies'", async () => {
    const page = fixture.replace("236,45870000", "1.234,5");
    expect((await parseBcvPage(page)).dollar).toBe("1234.5");
  });

  it("takes the value date nearest to the rates when the page has other dated items", async () => {
    const news = `<div class="news"><span class="date-display-single" content="2025-01-02T00:00:00-04:00">2 ene</span></div>`;
    const page = fixture.replace('<div class="view-content">', `${news}<div class="view-content">`);
    expect((await parseBcvPage(page)).valueDate).toBe("2026-11-23");
  });

  it("gives no value date when the page has none", async () => {
    const page = fixture.replace(/<span class="date-display-single"[^>]*>[^<]*<\/span>/, "");
    expect(await parseBcvPage(page)).toEqual({ dollar: "236.45870000", valueDate: undefined });
  });

  it("fails, without retrying, when #dolar is missing", async () => {
    const error = await parseFailure(fixture.replace('id="dolar"', 'id="dollar-renamed"'));
    expect(error).toBeInstanceOf(RateSourceError);
    expect(error).toMatchObject({ kind: "unparseable", transient: false });
    expect(error.message).toContain("#dolar");
  });

  it("fails naming the value when it is not a number", async () => {
    const error = await parseFailure(fixture.replace("236,45870000", "N/D"));
    expect(error).toMatchObject({ kind: "unparseable", transient: false });
    expect(error.message).toContain('"N/D"');
    expect(
      (await parseFailure(fixture.replace("<strong> 236,45870000 </strong>", "<strong> </strong>"))).message,
    ).toContain("no value");
  });

  it("fails naming the date when the Fecha Valor is not a date", async () => {
    const error = await parseFailure(fixture.replace("2026-11-23T00:00:00-04:00", "2026-02-30T00:00:00-04:00"));
    expect(error).toMatchObject({ kind: "unparseable" });
    expect(error.message).toContain("2026-02-30T00:00:00-04:00");
  });

  it("fails for a page that is not the central bank's", async () => {
    expect((await parseFailure("<html><body>Mantenimiento</body></html>")).kind).toBe("unparseable");
    expect((await parseFailure("")).kind).toBe("unparseable");
  });
});

describe("parseCommaDecimal", () => {
  it.each([
    ["236,45870000", "236.45870000"],
    [" 236,45870000 ", "236.45870000"],
    ["\u00a0240,12345678\u00a0", "240.12345678"],
    ["1.234.567,891", "1234567.891"],
    ["236", "236"],
    ["0,00000001", "0.00000001"],
  ])("reads %j as %j", (text, decimal) => {
    expect(parseCommaDecimal(text)).toBe(decimal);
  });

  it.each(["", "N/D", "236.45", "236,45,1", "1.23,4", "-236,45", "236,", ",5", "0,00000000", "12a,3", "1e3"])(
    "rejects %j",
    (text) => {
      expect(parseCommaDecimal(text)).toBeUndefined();
    },
  );
});

describe("calendarDateOf", () => {
  it("takes the calendar date as written, whatever the offset", () => {
    expect(calendarDateOf("2026-11-23T00:00:00-04:00")).toBe("2026-11-23");
    expect(calendarDateOf("2026-11-23T23:30:00+05:00")).toBe("2026-11-23");
    expect(calendarDateOf("2026-11-23")).toBe("2026-11-23");
  });

  it("rejects what is not a calendar date", () => {
    expect(calendarDateOf("2026-13-01T00:00:00-04:00")).toBeUndefined();
    expect(calendarDateOf("Lunes, 23 Noviembre 2026")).toBeUndefined();
    expect(calendarDateOf("2026-11-234")).toBeUndefined();
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AppServer, type SharedBank, sharedAppServer, sharedBank } from "../support/app-server";
import { deleteAllRates, seedRates, shiftDate, todayAtOffset } from "../support/rates";
import { registerAndGetToken } from "../support/users";

/**
 * Which rate is today's. The bank publishes, around 5 p.m. in Caracas, the rate whose value date is the next
 * business day: the stand-in bank publishes today's value date, then, as in the afternoon, tomorrow's. The rate in
 * force today (Caracas, UTC-4) stays the one every surface for people shows; the API's GET /rates/ keeps answering
 * the newest published one and says which it is.
 */
const today = todayAtOffset(-4);
const tomorrow = shiftDate(today, 1);
const WEEKDAYS_ES = ["domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"];
const MONTHS_ES = ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"];
/** "miércoles 2 dic", written without the app's helpers. */
const weekdayEs = (date: string) => {
  const moment = new Date(`${date}T00:00:00Z`);
  return `${WEEKDAYS_ES[moment.getUTCDay()]} ${moment.getUTCDate()} ${MONTHS_ES[moment.getUTCMonth()]}`;
};

let app: AppServer;
let bank: SharedBank;
let authorization: Record<string, string>;
beforeAll(async () => {
  app = await sharedAppServer();
  bank = sharedBank();
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(() => app?.stop());
beforeEach(() => deleteAllRates(app));

const json = async (path: string) => {
  const response = await app.fetch(path);
  return { status: response.status, body: await response.json() };
};

/** The bank publishes `dollar` for `date`, and the service fetches it (POST /rates/). */
async function publish(dollar: string, date: string) {
  await bank.setRate({ dollar, date });
  const started = Date.now();
  const response = await app.fetch("/rates/", { method: "POST", headers: authorization });
  expect(response.status).toBe(201);
  return { body: await response.json(), started, ended: Date.now() };
}

const instantWithin = (iso: string, started: number, ended: number) =>
  Date.parse(iso) >= started - 1000 && Date.parse(iso) <= ended + 1000;

describe("the bank's afternoon publication of tomorrow's rate", () => {
  it("GET /rates/ answers the newest (the next rate, in_force false); ?in_force=true today's", async () => {
    const morning = await publish("236,01010000", today);
    expect(morning.body).toMatchObject({ dollar: 236.0101, date: today, in_force: true });
    expect(instantWithin(morning.body.published_at, morning.started, morning.ended)).toBe(true);

    const afternoon = await publish("236,45870000", tomorrow);
    expect(afternoon.body).toMatchObject({ dollar: 236.4587, date: tomorrow, in_force: false });
    expect(instantWithin(afternoon.body.published_at, afternoon.started, afternoon.ended)).toBe(true);

    expect(await json("/rates/")).toEqual({
      status: 200,
      body: { dollar: 236.4587, date: tomorrow, in_force: false, published_at: afternoon.body.published_at },
    });
    expect(await json("/rates/?in_force=true")).toEqual({
      status: 200,
      body: {
        dollar: 236.0101,
        date: today,
        value_date: today,
        in_force: true,
        published_at: morning.body.published_at,
      },
    });
    expect((await json(`/rates/${tomorrow}`)).body.in_force).toBe(false);
    expect((await json(`/rates/${today}`)).body.in_force).toBe(true);
    // Asked for tomorrow, the rate in force then is the one published ahead.
    expect((await json(`/rates/${tomorrow}?in_force=true`)).body).toMatchObject({
      dollar: 236.4587,
      date: tomorrow,
      value_date: tomorrow,
      in_force: false,
    });
  });

  it("the badge shows the rate in force only; the embed card shows it and the next one with its day", async () => {
    await publish("236,01010000", today);
    await publish("236,45870000", tomorrow);
    const svg = await (await app.fetch("/rates/badge.svg")).text();
    expect(svg).toContain(">Bs. 236,0101 · ");
    expect(svg).not.toContain("236,4587");

    const card = await (await app.fetch("/embed?currency=USD")).text();
    expect(card).toContain('<p class="rate">Bs. 236,0101</p>');
    expect(card).toContain(`<p class="next">Próxima tasa: Bs. 236,4587, vigente desde el ${weekdayEs(tomorrow)}</p>`);
    const english = await (await app.fetch("/embed?lang=en")).text();
    expect(english).toMatch(
      /<p class="next">Next rate: Bs\. 236\.4587, in force from [A-Z][a-z]{2}, [A-Z][a-z]{2} \d{1,2}<\/p>/,
    );
  });

  it("the converter's and the price list's reads (GET /convert at today's date) use the rate in force", async () => {
    await publish("236,01010000", today);
    await publish("236,45870000", tomorrow);
    expect((await json(`/convert?amount=100&from=USD&to=VES&date=${today}`)).body).toMatchObject({
      result: "23601.01",
      date: today,
      requested_date: null,
    });
  });

  it("a rate published only ahead is in force nowhere yet: in_force=true and the badge answer 404", async () => {
    await publish("236,45870000", tomorrow);
    expect((await json("/rates/")).body.in_force).toBe(false);
    const { status, body } = await json("/rates/?in_force=true");
    expect(status).toBe(404);
    expect(body.detail).toBe(`No rate is stored on or before ${today}: no rate was in force then.`);
    const badge = await json("/rates/badge.svg");
    expect(badge.status).toBe(404);
    expect(badge.body.detail).toBe(
      `No rate of USD is in force yet: its first value date is ${tomorrow}, after today (${today}).`,
    );
    // The card on a shop's site says so in its frame, and shows the next rate, rather than a problem's JSON.
    const card = await app.fetch("/embed");
    expect(card.status).toBe(200);
    const html = await card.text();
    expect(html).toContain('<p class="date">Aún no hay una tasa vigente.</p>');
    expect(html).toContain(`<p class="next">Próxima tasa: Bs. 236,4587, vigente desde el ${weekdayEs(tomorrow)}</p>`);
    expect(html).not.toContain('<p class="rate">');
  });

  it("a first fetch in the evening, which stores only the next rate: the card and the price list show it as such", async () => {
    await publish("236,45870000", tomorrow);
    const html = await (await app.fetch("/", { headers: { "Accept-Language": "es-VE" } })).text();
    const start = html.indexOf('id="latest-rate"');
    const card = html.slice(start, html.indexOf("</section>", start));
    const text = card.replace(/<!--.*?-->/g, "").replace(/<[^>]+>/g, "");
    expect(text).toContain("Aún no hay una tasa vigente hoy: el Banco Central ya publicó la próxima.");
    expect(text).toContain(`Próxima tasa: Bs. 236,4587, vigente desde el ${weekdayEs(tomorrow)}`);
    expect(text).not.toContain("Aún no hay tasas guardadas");

    // The price list too, at that next rate.
    const prices = await (await app.fetch("/prices", { headers: { "Accept-Language": "es-VE" } })).text();
    const list = prices
      .replace(/<script[\s\S]*?<\/script>/g, "")
      .replace(/<!--.*?-->/g, "")
      .replace(/<[^>]+>/g, "");
    expect(list).toContain("Próximas tasas BCV: 1 USD = Bs. 236,4587");
    expect(list).toContain(
      `Aún no hay una tasa vigente hoy: estas son las próximas, vigentes desde el ${weekdayEs(tomorrow)}.`,
    );
    expect(list).not.toContain("Aún no hay tasas guardadas");
  });
});

describe("weekends and holidays", () => {
  it("a Friday's publication (Monday's value date) seen on the Saturday: Friday's rate is in force then", async () => {
    // Friday 27 and Monday 30 November 2026; asked for Saturday 28 November.
    seedRates(app, [
      { date: "2026-11-27", dollar: "233.1000" },
      { date: "2026-11-30", dollar: "234.2000" },
    ]);
    expect((await json("/rates/2026-11-28?in_force=true")).body).toMatchObject({
      dollar: 233.1,
      date: "2026-11-28",
      value_date: "2026-11-27",
    });
    expect((await json("/rates/2026-11-30?in_force=true")).body).toMatchObject({
      dollar: 234.2,
      value_date: "2026-11-30",
    });
  });
});

describe("the API says what it takes", () => {
  it("GET /rates/ accepts currency as currencies with one code, and not both", async () => {
    await publish("236,01010000", today);
    const { body } = await json("/rates/?currency=eur");
    expect(Object.keys(body.rates)).toEqual(["EUR"]);
    const both = await json("/rates/?currency=EUR&currencies=CNY");
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([{ field: "query.currency", message: "must not be sent with currencies" }]);
    const all = await json("/rates/?currency=all");
    expect(all.status).toBe(400);
    expect(all.body.detail).toMatch(/^currency must be one ISO 4217 code: /);
  });

  it.each([
    ["/rates/?currencie=EUR", "currencie", "currencies, include, decimals, currency, in_force"],
    [`/rates/${today}?format=csv`, "format", "currencies, include, decimals, in_force"],
    ["/rates/history?end=2026-12-01", "end", "currencies, include, decimals, start_date, end_date, format"],
    ["/rates/badge.svg?currencies=EUR", "currencies", "currency, lang"],
    ["/embed?dark=1", "dark", "currency, lang, theme"],
    ["/convert?amount=1&from=USD&to=VES&fecha=2026-12-01", "fecha", "amount, from, to, date"],
    ["/currencies?all=1", "all", undefined],
    ["/rates/status?x=1", "x", undefined],
  ])("%s answers 400 naming the unknown parameter and the allowed ones", async (path, name, allowed) => {
    await publish("236,01010000", today);
    const { status, body } = await json(path);
    expect(status).toBe(400);
    const takes = allowed ? `takes ${allowed}` : "takes no query parameters";
    expect(body.detail).toBe(`Unknown query parameter ${name}: this endpoint ${takes}.`);
    expect(body.errors).toEqual([
      { field: `query.${name}`, message: `is not a parameter of this endpoint, which ${takes}` },
    ]);
  });

  it("lets `_`, a browser client's cache-buster, pass on every rates endpoint", async () => {
    await publish("236,01010000", today);
    for (const path of ["/rates/?_=1733100000000", "/rates/badge.svg?_=1", "/currencies?_=2", "/rates/status?_=3"]) {
      expect((await app.fetch(path)).status, path).toBe(200);
    }
  });

  it("answers 400, not 422, for a value that fails validation", async () => {
    for (const path of [`/rates/2026-02-30`, "/rates/history?format=xml", "/rates/badge.svg?lang=fr"]) {
      const { status, body } = await json(path);
      expect(status, path).toBe(400);
      expect(body.title).toBe("Bad Request");
    }
  });

  it("decimals=string writes every decimal value as decimal text; numbers stay the default", async () => {
    const yesterday = shiftDate(today, -1);
    await publish("200,00000000", yesterday);
    await publish("236,01010000", today);
    const text = await json(`/rates/${today}?decimals=string&include=change`);
    expect(text.body).toMatchObject({
      dollar: "236.0101",
      previous: { date: yesterday, dollar: "200" },
      change: "36.0101",
      change_percent: expect.stringMatching(/^18\.005\d?$/),
      in_force: true,
    });
    expect((await json("/rates/?decimals=string")).body.dollar).toBe("236.0101");
    const history = await json(
      `/rates/history?decimals=string&currencies=EUR&start_date=${yesterday}&end_date=${today}`,
    );
    expect(history.body.rates.map((rate: { dollar: unknown }) => rate.dollar)).toEqual(["236.0101", "200"]);
    for (const rate of history.body.rates) {
      expect(Object.keys(rate.rates)).toEqual(["EUR"]);
      expect(typeof rate.rates.EUR).toBe("string");
    }

    for (const path of [`/rates/${today}?decimals=number`, `/rates/${today}`]) {
      expect((await json(path)).body.dollar, path).toBe(236.0101);
    }
    const wrong = await json("/rates/?decimals=float");
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([{ field: "query.decimals", message: 'must be "number" or "string"' }]);
  });

  it("the badge's error names its own parameter, currency", async () => {
    const { status, body } = await json("/rates/badge.svg?currency=XYZ");
    expect(status).toBe(400);
    expect(body.detail).toMatch(
      /^currency must be one ISO 4217 code: XYZ is not a currency the central bank publishes/,
    );
    expect(body.errors).toEqual([{ field: "query.currency", message: expect.stringMatching(/^XYZ is not/) }]);
  });
});

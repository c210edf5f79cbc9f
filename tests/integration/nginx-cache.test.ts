import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { type BuildsFixture, fixtureUids, makeBuildsFixture } from "../support/builds";
import { type NginxServer, startNginx } from "../support/nginx";
import { rateFields, seedRates, shiftDate, todayAtOffset } from "../support/rates";
import { registerAndGetToken } from "../support/users";

/**
 * Debian's nginx with the shipped configuration (deploy/nginx/bcv-rates.conf) in front of the built app, all
 * on loopback. Fails, naming the fix, where nginx is not installed: CI installs it.
 * The app's max-age is shortened to 2 s here so that the write-visibility bound can be waited out.
 */
const MAX_AGE_SECONDS = 2;
let bcv: BcvServer;
let app: AppServer;
let nginx: NginxServer;
let fixture: BuildsFixture;
let authorization: Record<string, string>;
const today = todayAtOffset(-4);
const yesterday = shiftDate(today, -1);

beforeAll(async () => {
  // install prints a line every 0.5 s: the SSE test watches them come through nginx one by one.
  fixture = makeBuildsFixture(
    (f) => `
builds_root: ${f.buildsRoot}
ports: { start: ${f.ports.start}, end: ${f.ports.end} }
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(f.ports))}
  install: for i in 1 2 3 4 5 6; do echo "line $i"; sleep 0.5; done
repositories:
  - { alias: demo, url: ./repo, default_ref: main, modules_path: addons, module_manifest: manifest.json }
`,
  );
  bcv = await startBcvServer();
  app = await startAppServer({
    BCV_URL: bcv.url,
    BCV_RETRIES: "0",
    BUILDS_CONFIG: fixture.configFile,
    RATES_CACHE_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS),
  });
  nginx = await startNginx({ appPort: Number(new URL(app.baseUrl).port) });
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(async () => {
  await nginx?.stop();
  await app?.stop();
  await bcv?.stop();
});

const throughNginx = (path: string, init?: RequestInit) => fetch(nginx.baseUrl + path, init);
const cacheStatus = (response: Response) => response.headers.get("x-cache-status");

/** A GET through nginx with exactly these headers (fetch would add its own Accept-Encoding and decompress). */
function rawGet(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(nginx.baseUrl + path, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

describe("nginx in front (deploy/nginx/bcv-rates.conf)", () => {
  it("serves a second read of a public rate from its cache", async () => {
    seedRates(app, [{ date: yesterday, dollar: "100.00000000" }]);
    for (const path of ["/rates/", `/rates/${yesterday}`, "/rates/history"]) {
      const first = await throughNginx(path);
      expect(first.status, path).toBe(200);
      expect(cacheStatus(first), path).toBe("MISS");
      const body = await first.text();
      const second = await throughNginx(path);
      expect(cacheStatus(second), path).toBe("HIT");
      expect(await second.text()).toBe(body);
      expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
      // nginx answers If-None-Match itself from the cached copy.
      const revalidated = await throughNginx(path, { headers: { "If-None-Match": first.headers.get("etag")! } });
      expect(revalidated.status).toBe(304);
    }
  });

  it(`shows a write through the cache within the app's max-age (${MAX_AGE_SECONDS} s) plus one revalidation`, async () => {
    const cached = await throughNginx("/rates/");
    expect(rateFields(await cached.json())).toEqual({ dollar: 100, date: yesterday });
    bcv.setRate({ dollar: "101,50000000", date: today });
    const write = await throughNginx("/rates/", { method: "POST", headers: authorization });
    expect(write.status).toBe(201);
    // Writes never consult the cache.
    expect(cacheStatus(write)).toBeNull();
    const wroteAt = Date.now();
    let seenAfterMs: number | undefined;
    while (Date.now() - wroteAt < (MAX_AGE_SECONDS + 3) * 1000) {
      const body = await (await throughNginx("/rates/")).json();
      if (body.date === today) {
        seenAfterMs = Date.now() - wroteAt;
        break;
      }
      expect(rateFields(body)).toEqual({ dollar: 100, date: yesterday });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The bound stated in the configuration: max-age, plus the revalidation (allowing 1 s on a loaded machine).
    expect(seenAfterMs).toBeDefined();
    expect(seenAfterMs!).toBeLessThanOrEqual(MAX_AGE_SECONDS * 1000 + 1000);
    expect(rateFields(await (await throughNginx("/rates/")).json())).toEqual({ dollar: 101.5, date: today });
  });

  it("never serves /users/me, nor any request with credentials, from the cache", async () => {
    const other = await registerAndGetToken(app);
    for (let round = 0; round < 2; round++) {
      const mine = await throughNginx("/users/me", { headers: authorization });
      const theirs = await throughNginx("/users/me", { headers: other.authorization });
      const anonymous = await throughNginx("/users/me");
      expect(mine.status).toBe(200);
      expect((await theirs.json()).email).toBe(other.email);
      expect(anonymous.status).toBe(401);
      for (const response of [mine, theirs, anonymous]) expect(cacheStatus(response)).toBeNull();
    }
    for (const headers of [
      authorization,
      { Cookie: "next-auth.session-token=abc" },
      { Cookie: "__Secure-next-auth.session-token.0=abc" },
    ]) {
      const response = await throughNginx("/rates/", { headers });
      expect(cacheStatus(response), JSON.stringify(headers)).toBe("BYPASS");
    }
  });

  it("passes a build's live log through unbuffered, line by line", async () => {
    const created = await throughNginx("/builds", {
      method: "POST",
      headers: { ...authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ repositories: [{ repository: "demo" }], modules: ["base_mod"] }),
    });
    expect(created.status).toBe(202);
    const { build_id } = (await created.json()) as { build_id: string };
    const stream = await throughNginx(`/builds/${build_id}/logs/stream?stage=install`);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(cacheStatus(stream)).toBeNull();
    const arrivals = new Map<string, number>();
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: end")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      for (const match of text.matchAll(/^data: (line \d)$/gm))
        if (!arrivals.has(match[1])) arrivals.set(match[1], Date.now());
    }
    await reader.cancel();
    expect([...arrivals.keys()]).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5", "line 6"]);
    // Printed 0.5 s apart: buffered, they would arrive together at the end.
    expect(arrivals.get("line 6")! - arrivals.get("line 2")!).toBeGreaterThanOrEqual(1500);
  });

  it("sends the histories gzip-compressed to clients that accept it, each encoding from a cached copy of its own", async () => {
    // Sixty days, well before the other tests' dates: a history of about 2.5 KB.
    const days = Array.from({ length: 60 }, (_, index) => shiftDate(today, -100 - index));
    seedRates(
      app,
      days.map((date, index) => ({ date, dollar: `${200 + index}.12345678` })),
    );
    const path = `/rates/history?start_date=${days.at(-1)}&end_date=${days[0]}`;

    const plain = await rawGet(path);
    expect(plain.status).toBe(200);
    expect(plain.headers["x-cache-status"]).toBe("MISS");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.byteLength).toBeGreaterThan(1024);
    expect((JSON.parse(plain.body.toString()) as { rates: unknown[] }).rates).toHaveLength(60);

    const browser = { "Accept-Encoding": "gzip, deflate, br" };
    const compressed = await rawGet(path, browser);
    // A copy of its own: the plain one is not served to it, nor compressed on every hit.
    expect(compressed.headers["x-cache-status"]).toBe("MISS");
    expect(compressed.headers["content-encoding"]).toBe("gzip");
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.gunzipSync(compressed.body).equals(plain.body)).toBe(true);
    expect(compressed.body.byteLength).toBeLessThan(plain.body.byteLength / 2);

    const compressedAgain = await rawGet(path, browser);
    expect(compressedAgain.headers["x-cache-status"]).toBe("HIT");
    expect(compressedAgain.headers["content-encoding"]).toBe("gzip");
    expect(compressedAgain.body.equals(compressed.body)).toBe(true);
    // nginx answers If-None-Match from the compressed copy too (its ETag is weak: the bytes are not the app's).
    expect(compressed.headers.etag).toMatch(/^W\//);
    expect((await rawGet(path, { ...browser, "If-None-Match": compressed.headers.etag! })).status).toBe(304);

    // gzip refused with q=0, and no Accept-Encoding at all: the plain copy.
    for (const headers of [{ "Accept-Encoding": "gzip;q=0, identity" }, {}] as Record<string, string>[]) {
      const again = await rawGet(path, headers);
      expect(again.headers["x-cache-status"], JSON.stringify(headers)).toBe("HIT");
      expect(again.headers["content-encoding"], JSON.stringify(headers)).toBeUndefined();
      expect(again.body.equals(plain.body)).toBe(true);
    }

    // A single rate is not worth compressing: one copy for every client.
    const latest = await rawGet("/rates/", browser);
    expect(latest.status).toBe(200);
    expect(latest.headers["content-encoding"]).toBeUndefined();
    expect((await rawGet("/rates/")).headers["x-cache-status"]).toBe("HIT");
  });
});

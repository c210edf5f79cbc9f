import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { startBcvServer, type BcvServer } from "../support/bcv-server";
import { makeBuildsFixture, type BuildsFixture } from "../support/builds";
import { startNginx, type NginxServer } from "../support/nginx";
import { seedRates, shiftDate, todayAtOffset } from "../support/rates";
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
    expect(await cached.json()).toEqual({ dollar: 100, date: yesterday });
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
      expect(body).toEqual({ dollar: 100, date: yesterday });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The bound stated in the configuration: max-age, plus the revalidation (allowing 1 s on a loaded machine).
    expect(seenAfterMs).toBeDefined();
    expect(seenAfterMs!).toBeLessThanOrEqual(MAX_AGE_SECONDS * 1000 + 1000);
    expect(await (await throughNginx("/rates/")).json()).toEqual({ dollar: 101.5, date: today });
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
    for (const headers of [authorization, { Cookie: "next-auth.session-token=abc" }, { Cookie: "__Secure-next-auth.session-token.0=abc" }]) {
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
      for (const match of text.matchAll(/^data: (line \d)$/gm)) if (!arrivals.has(match[1])) arrivals.set(match[1], Date.now());
    }
    await reader.cancel();
    expect([...arrivals.keys()]).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5", "line 6"]);
    // Printed 0.5 s apart: buffered, they would arrive together at the end.
    expect(arrivals.get("line 6")! - arrivals.get("line 2")!).toBeGreaterThanOrEqual(1500);
  });
});

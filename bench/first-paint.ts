/**
 * `npm run bench:first-paint` (after `npm run build`): how soon the dashboard shows a person the rate.
 * Starts the built app on a database of 3,700 daily rates, opens `/` in Chromium BENCH_PAINT_RUNS times (7) in
 * a fresh browser context each time (nothing cached), under two conditions: loopback as is, and a phone-like
 * profile (CPU slowed 4 × and the network at 1.6 Mbit/s with 150 ms round trips, as Lighthouse's mobile
 * preset), and prints the medians of:
 * - first contentful paint (the browser's own `first-contentful-paint` entry);
 * - rate visible: the latest rate's figure in the page and painted (the later of the two);
 * - table visible: the first row of the history table likewise;
 * - chart drawn: the chart's line in the page;
 * - script: the JavaScript fetched before the rate was visible, and in all, in KB as transferred.
 * Marks are taken in the page by a MutationObserver installed before any of its scripts run.
 */
import { type BrowserContext, chromium } from "@playwright/test";
import { seedDailyRates } from "./support/seed";
import { assertBuilt, makeDatabase, startApp } from "./support/servers";

const RUNS = Number(process.env.BENCH_PAINT_RUNS ?? 7);

interface Sample {
  fcp: number;
  rateVisible: number;
  tableVisible: number;
  chartDrawn: number;
  scriptBeforeRateKb: number;
  scriptKb: number;
}

// Runs in the page before its own scripts: records when each thing first appears in the DOM. A string, not a
// function: tsx would wrap a function's inner functions in helpers the page does not have.
const WATCH_FOR_CONTENT = `(() => {
  const seen = {};
  const probes = {
    rate: () => /\\d/.test(document.querySelector('[data-testid="latest-rate"]')?.textContent ?? ""),
    table: () => Boolean(document.querySelector('section[aria-label="Exchange rates"] table tbody tr td')),
    chart: () => Boolean(document.querySelector(".recharts-line-curve")),
  };
  const check = () => {
    for (const [name, probe] of Object.entries(probes)) if (seen[name] === undefined && probe()) seen[name] = performance.now();
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
  window.__seen = seen;
})();`;

async function measureOnce(context: BrowserContext, baseUrl: string, throttle: boolean): Promise<Sample> {
  const page = await context.newPage();
  await page.addInitScript(WATCH_FOR_CONTENT);
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
  }
  await page.goto(`${baseUrl}/`, { waitUntil: "load" });
  await page.waitForFunction(
    "window.__seen.rate !== undefined && window.__seen.table !== undefined && window.__seen.chart !== undefined",
    undefined,
    {
      timeout: 60_000,
    },
  );
  // A string for the same reason as WATCH_FOR_CONTENT.
  const sample = (await page.evaluate(`(() => {
    const seen = window.__seen;
    const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
    const scripts = performance.getEntriesByType("resource").filter((entry) => entry.initiatorType === "script" || entry.name.endsWith(".js"));
    const rateVisible = Math.max(seen.rate, fcp);
    const before = scripts.filter((entry) => entry.responseEnd <= rateVisible);
    return {
      fcp,
      rateVisible,
      tableVisible: Math.max(seen.table, fcp),
      chartDrawn: seen.chart,
      scriptBeforeRateKb: before.reduce((sum, entry) => sum + entry.transferSize, 0) / 1024,
      scriptKb: scripts.reduce((sum, entry) => sum + entry.transferSize, 0) / 1024,
    };
  })()`)) as Sample;
  await page.close();
  return sample;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main() {
  assertBuilt();
  const { databaseFile } = makeDatabase();
  seedDailyRates(databaseFile, new Date().toISOString().slice(0, 10));
  const app = await startApp({
    databaseUrl: `file:${databaseFile}`,
    env: { RATES_FETCH_INTERVAL_SECONDS: "0", BCV_URL: "http://127.0.0.1:9/" },
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    // A first visit warms the server (its route code and the read cache), not measured.
    const warm = await browser.newContext({ bypassCSP: true });
    await measureOnce(warm, app.baseUrl, false);
    await warm.close();
    const rows: string[] = [];
    for (const [label, throttle] of [
      ["loopback", false],
      ["phone-like (4 × CPU, 1.6 Mbit/s, 150 ms)", true],
    ] as const) {
      const samples: Sample[] = [];
      for (let run = 0; run < RUNS; run++) {
        const context = await browser.newContext({ viewport: { width: 1440, height: 960 }, bypassCSP: true });
        samples.push(await measureOnce(context, app.baseUrl, throttle));
        await context.close();
      }
      const m = (key: keyof Sample) => median(samples.map((sample) => sample[key]));
      rows.push(
        `| ${label} | ${m("fcp").toFixed(0)} | ${m("rateVisible").toFixed(0)} | ${m("tableVisible").toFixed(0)} | ${m("chartDrawn").toFixed(0)} | ${m("scriptBeforeRateKb").toFixed(0)} | ${m("scriptKb").toFixed(0)} |`,
      );
      console.error(
        label,
        JSON.stringify(
          samples.map((sample) =>
            [sample.fcp, sample.rateVisible, sample.tableVisible, sample.chartDrawn].map(Math.round),
          ),
        ),
      );
    }
    console.log(`Medians of ${RUNS} cold loads of / (ms from navigation start; KB transferred):\n`);
    console.log(
      "| condition | first contentful paint | rate visible | table visible | chart drawn | script before the rate, KB | script in all, KB |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    for (const row of rows) console.log(row);
  } finally {
    await browser.close();
    await app.stop();
  }
}

await main();

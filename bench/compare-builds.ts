/**
 * `npm run bench:compare -- BEFORE AFTER [PATH ...]`: two builds of the app side by side, for a change on the hot
 * path measured on a busy machine. BEFORE and AFTER are folders holding a `.next` each (a copy of the project's
 * after `npm run build`, with the rest of the project linked in: see docs/performance.md). Both start on databases
 * seeded alike, and each PATH (default: the four rate reads) is loaded on one, then the other, BENCH_ROUNDS (5)
 * times, BENCH_SECONDS (5) each. What is compared is the server's CPU time per request (/proc), round by round:
 * the machine's other load falls on both builds of a round alike, which requests per second do not show.
 */

import fs from "node:fs";
import path from "node:path";
import { measureLoad } from "./support/load";
import { seedDailyRates, shiftDate } from "./support/seed";
import { makeDatabase, type Server, startApp } from "./support/servers";

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main() {
  const [before, after, ...rest] = process.argv.slice(2);
  for (const dir of [before, after]) {
    if (!dir || !fs.existsSync(path.join(dir, ".next", "BUILD_ID"))) {
      throw new Error("Usage: npm run bench:compare -- BEFORE AFTER [PATH ...], two folders with a built .next");
    }
  }
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const today = new Date().toISOString().slice(0, 10);
  const targets = rest.length
    ? rest
    : [
        "/rates/",
        `/rates/${shiftDate(today, -100)}`,
        "/rates/history",
        `/rates/history?start_date=${shiftDate(today, -3660)}&end_date=${today}`,
      ];
  const databases = [makeDatabase(), makeDatabase()];
  for (const { databaseFile } of databases) seedDailyRates(databaseFile, today);
  const servers: Server[] = [];
  try {
    for (const [index, dir] of [before, after].entries()) {
      servers.push(await startApp({ databaseUrl: `file:${databases[index].databaseFile}`, dir: path.resolve(dir) }));
    }
    for (const target of targets) {
      const cpu: number[][] = [[], []];
      for (let round = 0; round < rounds; round++) {
        // Which build goes first alternates, so neither always follows the other's load.
        const order = round % 2 ? [1, 0] : [0, 1];
        for (const index of order) {
          const server = servers[index];
          const result = await measureLoad(server.baseUrl + target, {
            durationSeconds: seconds,
            warmupSeconds: 1,
            serverProcessGroup: server.child.pid,
          });
          if (result.errors + result.non2xx) throw new Error(`${target}: ${result.errors + result.non2xx} errors`);
          cpu[index].push(result.cpuMicrosPerRequest ?? Number.NaN);
        }
      }
      const ratios = cpu[1].map((micros, round) => micros / cpu[0][round]);
      console.log(
        `${target}: server CPU µs a request, before ${median(cpu[0]).toFixed(0)} (${cpu[0].map(Math.round).join(", ")}), after ${median(cpu[1]).toFixed(0)} (${cpu[1].map(Math.round).join(", ")}); after/before ${median(ratios).toFixed(3)} (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`,
      );
    }
  } finally {
    for (const server of servers) await server.stop();
    for (const { dataDir } of databases) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

/**
 * Runs the central bank stand-in on its own: `npm run bcv:serve -- --port 4010`, then start the app with
 * BCV_URL=http://127.0.0.1:4010/ to get rates on a machine that cannot reach www.bcv.org.ve. It shows the
 * value date the bank would show now (the next business day's from 17:00 in Caracas); `--value-dates today`
 * shows today's, which the end-to-end tests pin their dates to.
 * Prints the page's URL on stdout. Change what it serves with
 *   curl -X PUT http://127.0.0.1:4010/__control -d '{"scenario":"ok","dollar":"240,12345678","date":"2026-11-24"}'
 * GET /__control always answers 200 with the state, so it also serves as a readiness check.
 */
import { parseArgs } from "node:util";
import { BCV_SCENARIOS, type BcvScenario, startBcvServer } from "./bcv-server";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "4010" },
    host: { type: "string", default: "127.0.0.1" },
    scenario: { type: "string", default: "ok" },
    "slow-ms": { type: "string" },
    "value-dates": { type: "string", default: "bank" },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number (0 for any free one), got "${values.port}"`);
  process.exit(2);
}
if (!BCV_SCENARIOS.includes(values.scenario as BcvScenario)) {
  console.error(`--scenario must be one of ${BCV_SCENARIOS.join(", ")}, got "${values.scenario}"`);
  process.exit(2);
}
const slowMs = values["slow-ms"] === undefined ? undefined : Number(values["slow-ms"]);
if (slowMs !== undefined && !(slowMs >= 0)) {
  console.error(`--slow-ms must be a number of milliseconds, got "${values["slow-ms"]}"`);
  process.exit(2);
}

const valueDates = values["value-dates"];
if (valueDates !== "bank" && valueDates !== "today") {
  console.error(`--value-dates must be bank or today, got "${valueDates}"`);
  process.exit(2);
}

const server = await startBcvServer({
  port,
  host: values.host,
  scenario: values.scenario as BcvScenario,
  slowMs,
  valueDates,
});
console.log(server.url);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void server.stop().then(() => process.exit(0)));
}

/**
 * Run by tests/integration/rates-webhooks-public.test.ts inside a network namespace of its own that holds only
 * loopback (`unshare -n`): starts the built app on a fresh database, subscribes webhooks to public and private
 * addresses through POST /rates/webhooks, and prints what each answered as one JSON line. Whatever the app tried
 * to send to a public address would fail at once (ENETUNREACH): nothing leaves the machine. It refuses to start
 * anywhere a network beyond loopback is up.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startBuiltServer } from "../../tools/built-server";

const interfaces = Object.keys(os.networkInterfaces());
if (interfaces.some((name) => name !== "lo")) {
  console.error(`not in a loopback-only network namespace (interfaces: ${interfaces.join(", ")})`);
  process.exit(3);
}

const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const urls = process.argv.slice(2);
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "webhooks-loopback-"));
const env = { DATABASE_URL: `file:${path.join(folder, "app.db")}`, RATES_FETCH_INTERVAL_SECONDS: "0" };
execFileSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
  cwd: projectRoot,
  env: { ...process.env, ...env },
  stdio: "ignore",
});
const server = await startBuiltServer({ port: 3000, host: "127.0.0.1", env });
try {
  const user = { email: "loopback@example.com", password: "correct horse battery" };
  await fetch(`${server.baseUrl}/users/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(user),
  });
  const token = await fetch(`${server.baseUrl}/users/token`, {
    method: "POST",
    body: new URLSearchParams({ username: user.email, password: user.password }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const answers: { url: string; status: number; detail?: string }[] = [];
  for (const url of urls) {
    const response = await fetch(`${server.baseUrl}/rates/webhooks`, {
      method: "POST",
      headers: { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url }),
    });
    const body = (await response.json()) as { detail?: string };
    answers.push({ url, status: response.status, detail: body.detail });
  }
  console.log(JSON.stringify({ interfaces, answers }));
} finally {
  await server.stop();
  fs.rmSync(folder, { recursive: true, force: true });
}

import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { stopProcessGroup } from "../../tools/processes";

// The previews' gateway as an operator runs it (`npm run gateway`), and raw HTTP to it with any Host header: Node's
// fetch neither sends a Host of one's choosing nor resolves *.localhost. Shared by the integration tests, the e2e
// spec and the benchmark; loads no vitest.

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

/**
 * The stand-in Odoo and the one package it imports, copied where a build's own uid can read them: a preview runs as
 * an unprivileged uid, which cannot enter a checkout under a private folder (CI clones into `mktemp -d`, mode 0700).
 */
function readableOdooLikePreview(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "odoo-like-preview-"));
  fs.chmodSync(folder, 0o755);
  fs.cpSync(path.join(projectRoot, "tests", "support", "odoo-like-preview.mjs"), path.join(folder, "preview.mjs"));
  fs.cpSync(path.join(projectRoot, "node_modules", "ws"), path.join(folder, "node_modules", "ws"), { recursive: true });
  process.once("exit", () => fs.rmSync(folder, { recursive: true, force: true }));
  return path.join(folder, "preview.mjs");
}

/** A build's `start` command running the stand-in Odoo preview. */
export const ODOO_LIKE_PREVIEW = `node ${readableOdooLikePreview()}`;

export interface Gateway {
  port: number;
  folder: string;
  output(): string;
  stop(): Promise<void>;
}

/** `npm run gateway -- --listen 127.0.0.1:<port> --app <appUrl>` with `env` (the app's DATABASE_URL, BUILDS_CONFIG...). */
export async function startGateway(options: {
  port: number;
  appUrl: string;
  env: Record<string, string | undefined>;
  dataDir: string;
}): Promise<Gateway> {
  const child: ChildProcess = spawn(
    path.join(projectRoot, "node_modules", ".bin", "tsx"),
    ["scripts/gateway.ts", "--listen", `127.0.0.1:${options.port}`, "--app", options.appUrl],
    {
      cwd: projectRoot,
      env: { ...process.env, ...options.env, DATA_DIR: options.dataDir },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const output: string[] = [];
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const folder = path.join(options.dataDir, "gateway");
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm run gateway exited with ${child.exitCode}:\n${output.join("")}`);
    const answered = await requestThrough(options.port, { host: "ready.invalid" }).then(
      () => true,
      () => false,
    );
    // nginx writes its pid once it has bound the port: an answer before that came from another test's server.
    if (answered && fs.existsSync(path.join(folder, "nginx.pid"))) break;
    if (Date.now() > deadline) throw new Error(`the gateway did not answer within 30 s:\n${output.join("")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port: options.port,
    folder,
    output: () =>
      output.join("") +
      (fs.existsSync(path.join(folder, "error.log")) ? fs.readFileSync(path.join(folder, "error.log"), "utf8") : ""),
    stop: () => stopProcessGroup(child),
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request to 127.0.0.1:<port> with this Host header (and others), as a browser at that name sends it. */
export function requestThrough(
  port: number,
  options: {
    host: string;
    path?: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Another loopback address to send from (127.0.0.2...): another client, as the gateway sees it. */
    localAddress?: string;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: options.path ?? "/",
        method: options.method ?? "GET",
        headers: { ...options.headers, Host: options.host },
        agent: false,
        setHost: false,
        localAddress: options.localAddress,
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.setTimeout(70_000, () => request.destroy(new Error("no answer within 70 s")));
    request.end(options.body);
  });
}

/** Bytes as they are, for requests no HTTP client would send (two Host headers, junk in a header). */
export function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(text));
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(15_000, () => socket.destroy(new Error("no answer within 15 s")));
  });
}

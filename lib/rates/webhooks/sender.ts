import http from "node:http";
import https from "node:https";
import net from "node:net";
import { type AllowedHosts, bareHost, checkAddress, DestinationRefused, guardedLookup } from "./destination";

export type AttemptResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/**
 * POSTs one delivery. Connects only to an address the destination rules allow (checked at connect time, on
 * the address the socket uses), never follows a redirect (a 3xx is a failed attempt), reads no more than the
 * status line and headers, and gives up after `timeoutMs` whatever the receiver does (a hanging receiver costs
 * one socket for that long, never the server's fetches or imports).
 */
export function postDelivery(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowed: AllowedHosts },
): Promise<AttemptResult> {
  const target = new URL(url);
  const host = bareHost(target);
  if (net.isIP(host)) {
    // A literal address is never looked up, so the lookup's check would not run: check it here.
    try {
      checkAddress(host, host, options.allowed);
    } catch (error) {
      return Promise.resolve({ ok: false, status: null, error: `refused: ${(error as Error).message}` });
    }
  }
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = client.request(
      target,
      {
        method: "POST",
        agent: false,
        lookup: guardedLookup(options.allowed),
        headers: { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) settle({ ok: true, status });
        else if (status >= 300 && status < 400) {
          settle({
            ok: false,
            status,
            error: `answered ${status}: redirects are not followed (Location: ${String(response.headers.location ?? "none").slice(0, 200)})`,
          });
        } else settle({ ok: false, status, error: `answered ${status}` });
      },
    );
    const timer = setTimeout(
      () => settle({ ok: false, status: null, error: `no answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    request.on("error", (error) =>
      settle({
        ok: false,
        status: null,
        error:
          error instanceof DestinationRefused ? `refused: ${error.message}` : `could not connect: ${error.message}`,
      }),
    );
    request.end(body);
  });
}

import http from "node:http";
import type { AppServer } from "./app-server";

/**
 * Signs in the way the dashboard does (next-auth's credentials callback, with its CSRF token) and returns the
 * browser's cookies: the session cookie and next-auth's own.
 */
export async function signInWithCookie(app: AppServer, email: string, password: string) {
  const csrf = await app.fetch("/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = new Map<string, string>();
  absorb(jar, csrf);
  const callback = await app.fetch("/api/auth/callback/credentials", {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookieHeader(jar) },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  absorb(jar, callback);
  const session = [...jar.keys()].find((name) => name.includes("session-token"));
  if (!session) throw new Error(`no session cookie after sign-in (status ${callback.status})`);
  return { csrfToken, cookie: cookieHeader(jar), sessionCookie: `${session}=${jar.get(session)}` };
}

/** The dashboard's "Sign out": next-auth's signout endpoint with the CSRF token and the browser's cookies. */
export async function signOutWithCookie(app: AppServer, signedIn: { csrfToken: string; cookie: string }) {
  return app.fetch("/api/auth/signout", {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: signedIn.cookie },
    body: new URLSearchParams({ csrfToken: signedIn.csrfToken, json: "true" }),
  });
}

function absorb(jar: Map<string, string>, response: Response) {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const index = pair.indexOf("=");
    jar.set(pair.slice(0, index), pair.slice(index + 1));
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * An HTTP request sent from a chosen loopback address (127.0.0.2, 127.0.0.3, ...: Linux routes all of 127/8
 * to the loopback interface), so that tests can act as different clients.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers, localAddress },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

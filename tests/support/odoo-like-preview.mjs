// A stand-in for an Odoo preview, run as a build's `start` command (node tests/support/odoo-like-preview.mjs):
// Odoo itself cannot run here. It behaves as Odoo 16 does on what the gateway must carry:
// - a `session_id` cookie (HttpOnly, Path=/) given on the first visit, and a sign-in kept per session in memory;
// - links built from X-Forwarded-Host and X-Forwarded-Proto, as Odoo's proxy_mode builds them (from Host and
//   plain http without them);
// - a WebSocket on /websocket (Odoo 16's bus), and long polling on /longpolling/poll (Odoo 15 and older);
// listening on $PREVIEW_ADDRESS:$PORT only, as the build service asks.
import crypto from "node:crypto";
import http from "node:http";
import { WebSocketServer } from "ws";

const buildId = process.env.BUILD_ID ?? "unknown";
const address = process.env.PREVIEW_ADDRESS ?? "127.0.0.1";
const logins = new Map();

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function cookieOf(request, name) {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return null;
}

/** The address the visitor used, as Odoo's proxy_mode reads it. */
function urlRoot(request) {
  const host = request.headers["x-forwarded-host"] ?? request.headers.host;
  const proto = request.headers["x-forwarded-proto"] ?? "http";
  return `${proto}://${host}/`;
}

function session(request, response) {
  let id = cookieOf(request, "session_id");
  if (!id || !/^[0-9a-f]{40}$/.test(id)) {
    id = crypto.randomBytes(20).toString("hex");
    response.setHeader("Set-Cookie", `session_id=${id}; HttpOnly; Path=/; SameSite=Lax`);
  }
  return id;
}

function page(response, title, body) {
  response.writeHead(response.statusCode || 200, { "Content-Type": "text/html; charset=utf-8" });
  response.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`,
  );
}

const server = http.createServer((request, response) => {
  const url = new URL(request.url, "http://preview");
  const sessionId = session(request, response);
  if (url.pathname === "/web/login" && request.method === "POST") {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      logins.set(sessionId, new URLSearchParams(body).get("login") ?? "");
      response.writeHead(303, { Location: `${urlRoot(request)}web` });
      response.end();
    });
    return;
  }
  if (url.pathname === "/web/login")
    return page(
      response,
      `Odoo login, build ${buildId}`,
      `<h1>Log in to build ${escapeHtml(buildId)}</h1>
<form method="post" action="/web/login"><label>Email <input name="login"></label><button type="submit">Log in</button></form>
<p>Session <code data-testid="session">${escapeHtml(sessionId)}</code></p>
<a id="home" href="${escapeHtml(urlRoot(request))}web">Home</a>`,
    );
  if (url.pathname === "/web") {
    const login = logins.get(sessionId);
    if (!login) {
      response.writeHead(303, { Location: `${urlRoot(request)}web/login` });
      return response.end();
    }
    return page(
      response,
      `Odoo, build ${buildId}`,
      `<h1>Build ${escapeHtml(buildId)}</h1><p data-testid="user">Signed in as ${escapeHtml(login)}</p>`,
    );
  }
  if (url.pathname === "/longpolling/poll") {
    const waitMs = Math.min(Number(url.searchParams.get("wait") ?? 2000) || 0, 120_000);
    const timer = setTimeout(() => {
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ build_id: buildId, waited_ms: waitMs }));
    }, waitMs);
    request.on("close", () => clearTimeout(timer));
    return;
  }
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end(
    JSON.stringify({
      build_id: buildId,
      listening: address,
      method: request.method,
      path: request.url,
      session_id: sessionId,
      url_root: urlRoot(request),
      headers: request.headers,
      // The gateway's side of the connection: the same port for requests that came over one kept connection.
      peer_port: request.socket.remotePort,
    }),
  );
});

const sockets = new WebSocketServer({ noServer: true });
server.on("upgrade", (request, socket, head) => {
  if (new URL(request.url, "http://preview").pathname !== "/websocket") return socket.destroy();
  sockets.handleUpgrade(request, socket, head, (ws) => {
    ws.send(JSON.stringify({ build_id: buildId, session: cookieOf(request, "session_id") !== null }));
    ws.on("message", (data) => ws.send(`echo ${buildId}: ${data}`));
  });
});

server.listen(Number(process.env.PORT), address, () =>
  console.log(`odoo-like preview of ${buildId} on ${address}:${process.env.PORT}`),
);
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));

// The demo's runtime: a page listing the build's modules, on $PREVIEW_ADDRESS:$PORT.
import fs from "node:fs";
import http from "node:http";
import { installedFile } from "./modules.mjs";

const { build_id: buildId, modules } = JSON.parse(fs.readFileSync(installedFile(), "utf8"));
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Build ${escapeHtml(buildId)}</title></head>
<body><h1>Build ${escapeHtml(buildId)}</h1><ul>
${modules.map(({ name, manifest }) => `<li><strong>${escapeHtml(name)}</strong> ${escapeHtml(manifest.version)}: ${escapeHtml(manifest.summary)}</li>`).join("\n")}
</ul></body></html>
`;

const server = http.createServer((request, response) => {
  console.log(`${request.method} ${request.url}`);
  response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  response.end(page);
});
// On the host's preview_address only (loopback unless set): the gateway, or this machine's browser, reaches it there.
server.listen(Number(process.env.PORT), process.env.PREVIEW_ADDRESS ?? "127.0.0.1", () =>
  console.log(`serving build ${buildId} on port ${process.env.PORT}`),
);
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));

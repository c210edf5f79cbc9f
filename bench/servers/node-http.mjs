// The machine's limit for a Node.js HTTP server: node:http answering the same constant JSON as the Next.js floor.
// Usage: node node-http.mjs PORT BODY, or node node-http.mjs PORT --bytes=N for constant JSON of N bytes (a body
// that size does not fit in one command-line argument).
import http from "node:http";

const [port, body] = process.argv.slice(2);
const size = /^--bytes=(\d+)$/.exec(body)?.[1];
const bytes = size
  ? Buffer.from(JSON.stringify({ padding: "x".repeat(Number(size) - '{"padding":""}'.length) }))
  : Buffer.from(body);
http
  .createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json", "Content-Length": bytes.length });
    response.end(bytes);
  })
  .listen(Number(port), "127.0.0.1");

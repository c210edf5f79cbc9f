import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for a git host's API (GitHub, GitLab, Gitea: parties outside the project), on loopback. It
 * records every request it is sent, in order, and answers 201 with a small JSON body, unless the test
 * scripts other answers (`answerNext`), serves a path with answers of its own (`serve`: the host's lists, such
 * as its open pull requests) or tells it never to answer (`hang`).
 */
export interface ForgeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  raw: string;
  /** What the stand-in answered (status and JSON body); undefined while it hangs. */
  answer?: { status: number; body: unknown };
}

export type ForgeAnswer = { status: number; body?: unknown } | "hang";

export interface ForgeServer {
  /** The API's base address, e.g. http://127.0.0.1:40123/api/v3 for `prefix` "/api/v3". */
  url: string;
  requests: ForgeRequest[];
  /** Requests whose path contains `fragment`, in the order they arrived. */
  requestsTo(fragment: string): ForgeRequest[];
  /** The next requests (one answer each, in order) get these answers; then 201 again. */
  answerNext(...answers: ForgeAnswer[]): void;
  /** GET requests to exactly this path (under the prefix, without the query) are answered by `answer`. */
  serve(path: string, answer: (query: URLSearchParams) => ForgeAnswer): void;
  /** Never answer anything from now on (requests are still recorded). */
  hang(): void;
  close(): Promise<void>;
}

export async function startForgeServer(prefix = ""): Promise<ForgeServer> {
  const requests: ForgeRequest[] = [];
  const scripted: ForgeAnswer[] = [];
  const served = new Map<string, (query: URLSearchParams) => ForgeAnswer>();
  let hanging = false;
  let nextId = 1000;
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = { unparsable: raw };
      }
      const url = new URL(request.url ?? "/", "http://forge.invalid");
      const path = decodeURI(url.pathname.slice(prefix.length));
      const recorded: ForgeRequest = {
        method: request.method ?? "",
        path,
        query: url.searchParams,
        headers: request.headers,
        body,
        raw,
      };
      requests.push(recorded);
      const serve = request.method === "GET" ? served.get(path) : undefined;
      const answer = hanging
        ? "hang"
        : serve
          ? serve(url.searchParams)
          : (scripted.shift() ?? { status: 201, body: { id: nextId++, ...body } });
      if (answer === "hang") {
        open.add(response);
        return;
      }
      recorded.answer = { status: answer.status, body: answer.body ?? { id: nextId++ } };
      response.writeHead(answer.status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(recorded.answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    requestsTo: (fragment) => requests.filter((request) => request.path.includes(fragment)),
    answerNext: (...answers) => scripted.push(...answers),
    serve: (path, answer) => served.set(path, answer),
    hang: () => {
      hanging = true;
    },
    close: async () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import type http from "node:http";
import { processWide } from "../server/process-wide";

/**
 * How many HTTP requests the server is answering right now, counted by the request stamp that
 * instrumentation.ts installs (lib/http/client-address.ts). The build executor gives way to them before it
 * starts a stage (lib/builds/queue/executor.ts): starting one costs the server several milliseconds of its one event
 * loop (a fork of the whole process, database writes), which a burst of API requests should not wait behind.
 * Log streams (`…/logs/stream`) last as long as their clients like, so they do not count.
 */
const state = processWide<{ requestsInFlight?: number }>("requestsInFlight", () => ({}));

export function trackRequestInFlight(request: http.IncomingMessage, response: http.ServerResponse): void {
  if (isLogStream(request.url ?? "")) return;
  state.requestsInFlight = (state.requestsInFlight ?? 0) + 1;
  // 'close' comes once, when the response has been sent or the connection was cut.
  response.on("close", answered);
}

function answered(): void {
  state.requestsInFlight = (state.requestsInFlight ?? 1) - 1;
}

function isLogStream(url: string): boolean {
  const query = url.indexOf("?");
  return (query < 0 ? url : url.slice(0, query)).endsWith("/logs/stream");
}

export function requestsInFlight(): number {
  return state.requestsInFlight ?? 0;
}

/** Resolves as soon as no request is being answered, and at the latest after `maxMs`. */
export async function whenNoRequestsInFlight(maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (requestsInFlight() > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
}

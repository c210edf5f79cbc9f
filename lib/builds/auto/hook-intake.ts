import { serviceUnavailable } from "../../http/problem";
import { readBody } from "../../http/request";
import { getEnv } from "../../server/env";
import { processWide } from "../../server/process-wide";
import { checkHookBeforeBody, type HookAnswer, MAX_HOOK_BODY_BYTES, receiveHook } from "./webhooks";

/**
 * How POST /hooks/{alias} takes a delivery in. The body cannot be authenticated before it
 * is read (its HMAC is the signature), so whoever can reach the server can make it read bodies. Bounded three
 * ways: nothing is read for an alias that takes no webhooks or a request without a signature (404, 401, at
 * once); at most MAX_HOOK_BODIES_IN_FLIGHT bodies are read at a time, the next sender is told to come back
 * (503 with Retry-After: hosts redeliver); and a body must arrive within HOOK_BODY_TIMEOUT_MS (10 s by default),
 * so slow senders cannot hold the slots. Memory held by hook bodies stays below 8 x 5 MiB.
 */
export const MAX_HOOK_BODIES_IN_FLIGHT = 8;
const BUSY_RETRY_AFTER_SECONDS = 5;

// On globalThis, as the other per-process state of the builds (one count whatever bundle counts).
const globalForIntake = processWide<{ hookBodiesInFlight?: number }>("hookBodiesInFlight", () => ({}));

export async function takeInHook(alias: string, request: Request): Promise<HookAnswer> {
  checkHookBeforeBody(alias, request.headers);
  const inFlight = globalForIntake.hookBodiesInFlight ?? 0;
  if (inFlight >= MAX_HOOK_BODIES_IN_FLIGHT) {
    throw serviceUnavailable(
      `${MAX_HOOK_BODIES_IN_FLIGHT} webhook deliveries are being received already; deliver this one again in a few seconds.`,
      BUSY_RETRY_AFTER_SECONDS,
    );
  }
  globalForIntake.hookBodiesInFlight = inFlight + 1;
  let body: Buffer;
  try {
    // The raw bytes: the signature is over exactly what the host sent.
    body = Buffer.from(await readBody(request, MAX_HOOK_BODY_BYTES, { timeoutMs: getEnv().HOOK_BODY_TIMEOUT_MS }));
  } finally {
    globalForIntake.hookBodiesInFlight = (globalForIntake.hookBodiesInFlight ?? 1) - 1;
  }
  return receiveHook(alias, request.headers, body);
}

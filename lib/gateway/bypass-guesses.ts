import { processWide } from "../server/process-wide";

/**
 * Wrong X-Preview-Bypass secrets, per client address: after GUESSES_A_MINUTE of them within a minute, the gateway
 * stops checking that client's secrets and answers 429 with Retry-After, until the oldest guess is a minute old.
 * A refused attempt counts too, so a client that keeps guessing stays refused. Kept in this process's memory: each
 * instance of the app counts the guesses it was asked about, which at worst multiplies the rate by the instances.
 *
 * GET /gateway/resolve counts (once per request: nginx asks it once, and never caches a bypass request); the page
 * nginx shows next only reads the count, to answer 429 rather than 401.
 */
export const GUESSES_A_MINUTE = 10;
const WINDOW_MS = 60_000;
/** Addresses followed at most, so that a flood of addresses cannot grow the map without end. */
const MAX_CLIENTS = 10_000;

const guesses = processWide("bypassGuesses", () => new Map<string, number[]>());

function recent(client: string, now: number): number[] {
  const times = (guesses.get(client) ?? []).filter((time) => now - time < WINDOW_MS);
  if (times.length) guesses.set(client, times);
  else guesses.delete(client);
  return times;
}

/** Counts a wrong (or refused) bypass secret from this client. */
export function noteWrongBypass(client: string, now = Date.now()): void {
  const times = recent(client, now);
  if (!times.length && guesses.size >= MAX_CLIENTS) {
    for (const [other, otherTimes] of guesses)
      if (otherTimes.every((time) => now - time >= WINDOW_MS)) guesses.delete(other);
    // Still full: the oldest follower makes room (a Map keeps the order of insertion).
    if (guesses.size >= MAX_CLIENTS) guesses.delete(guesses.keys().next().value!);
  }
  guesses.set(client, [...times, now].slice(-(GUESSES_A_MINUTE + 1)));
}

/**
 * Seconds until this client may guess again, once it has made `allowed` wrong guesses this minute; null while it
 * may. The resolver asks with GUESSES_A_MINUTE (refuse the next); the page, which comes after the resolver counted
 * this request, with one more.
 */
export function bypassGuessesRetryAfter(client: string, allowed = GUESSES_A_MINUTE, now = Date.now()): number | null {
  const times = recent(client, now);
  if (times.length < allowed) return null;
  return Math.max(1, Math.ceil((times[times.length - allowed] + WINDOW_MS - now) / 1000));
}

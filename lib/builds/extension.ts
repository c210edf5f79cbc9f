/**
 * What Extend does to a running build's expiry, in one place for the API (lib/builds/actions/extend.ts) and the
 * dashboard's confirmation (which says the new expiry before it is asked for).
 *
 * "Extend by 1 hour" adds an hour to the time left, as Vercel's and runboat's "extend" do: it never
 * removes time. The sum is capped at ttl.max_seconds from now, and a build that already has more left than
 * that (the maximum was lowered since) keeps what it has.
 */
export interface Extension {
  /** The new expiry: never earlier than the current one. */
  expiresAt: Date;
  /** True when the maximum cut the addition short. */
  capped: boolean;
}

export function extendedExpiry(
  currentExpiry: Date,
  addSeconds: number,
  maxSeconds: number,
  now = new Date(),
): Extension {
  const asked = currentExpiry.getTime() + addSeconds * 1000;
  const ceiling = now.getTime() + maxSeconds * 1000;
  if (asked <= ceiling) return { expiresAt: new Date(asked), capped: false };
  return { expiresAt: new Date(Math.max(ceiling, currentExpiry.getTime())), capped: true };
}

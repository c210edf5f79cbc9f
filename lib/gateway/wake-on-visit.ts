import { getBuildsConfig } from "../builds/config";
import { wakeForVisit } from "../builds/runtime/sleep";
import { processWide } from "../server/process-wide";
import { getTopology } from "../topology";

/**
 * Wake on visit: a visit through the gateway to a sleeping preview wakes it, and the visitor gets a page that
 * reloads until the preview answers (lib/gateway/pages.ts). The visit is answered at once; the wake runs on the
 * build's host (this instance, or the host's INSTANCE_URL, asked with a signed request as forwarded ones are).
 *
 * A hundred visits at once wake it once: a wake asked for a build is not asked again for a minute (its host also
 * refuses a second wake while one runs). Waking is not a way to hurt others: each client address may start
 * gateway.wakes_per_hour wakes an hour (6 by default) on this instance, so nobody cycles every preview to sleep by
 * visiting names in turn (max_awake_builds puts the one awake longest to sleep for each wake). An expired or
 * destroyed build never gets here: only a sleeping one is woken.
 */
export type WakeOutcome = "waking" | "limited" | "unreachable";

const ASK_AGAIN_AFTER_MS = 60_000;
const HOUR_MS = 3_600_000;
const globalForWakes = processWide<{
  gatewayWakes?: { asked: Map<string, number>; byClient: Map<string, number[]> };
}>("gatewayWakes", () => ({}));

function state(): { asked: Map<string, number>; byClient: Map<string, number[]> } {
  return (globalForWakes.gatewayWakes ??= { asked: new Map(), byClient: new Map() });
}

export async function wakeOnVisit(build: { id: string; host: string | null }, client: string): Promise<WakeOutcome> {
  const { asked, byClient } = state();
  const now = Date.now();
  const askedAt = asked.get(build.id);
  if (askedAt !== undefined && now - askedAt < ASK_AGAIN_AFTER_MS) return "waking";
  const limit = getBuildsConfig().gateway?.wakes_per_hour ?? 0;
  const recent = (byClient.get(client) ?? []).filter((at) => now - at < HOUR_MS);
  if (recent.length >= limit) {
    byClient.set(client, recent);
    return "limited";
  }
  if (byClient.size > 10_000) forgetOldClients(now);
  byClient.set(client, [...recent, now]);
  asked.set(build.id, now);
  const forget = () => {
    if (asked.get(build.id) === now) asked.delete(build.id);
  };
  const topology = getTopology();
  if (build.host === null || build.host === topology.instanceName()) {
    void wakeForVisit(build.id)
      .catch((error) => console.error(`gateway: waking build ${build.id} on a visit failed:`, error))
      .finally(forget);
    return "waking";
  }
  try {
    const answer = await topology.postToInstance(build.host, `/gateway/wake/${build.id}`, client, 5_000);
    if (answer === null) {
      forget();
      return "unreachable";
    }
    await answer.body?.cancel();
    if (answer.ok) return "waking";
    console.error(`gateway: ${build.host} answered ${answer.status} to the wake of build ${build.id}`);
  } catch (error) {
    console.error(`gateway: ${build.host} did not take the wake of build ${build.id}:`, error);
  }
  forget();
  return "unreachable";
}

function forgetOldClients(now: number) {
  for (const [client, times] of state().byClient)
    if (times.every((at) => now - at >= HOUR_MS)) state().byClient.delete(client);
}

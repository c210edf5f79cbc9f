import pg from "pg";
import { execute } from "../db/hot-sql";
import { getEnv } from "../server/env";

/**
 * PostgreSQL's LISTEN/NOTIFY between the instances sharing a database: a wake-up, never a message that must
 * arrive (a notice sent while an instance reconnects is lost, so whoever listens also polls now and then). A single
 * instance (lib/topology) neither sends nor listens.
 */
export type Channel = "build_queued";

/** Tells every listening instance (this one included) that something happened on `channel`. */
export async function notifyInstances(channel: Channel): Promise<void> {
  await execute(`SELECT pg_notify(?, '')`, [channel]);
}

const RECONNECT_DELAY_MS = 2_000;

/**
 * Calls `onNotice` for each notice on `channel`, and once more after each (re)connection for what was sent
 * meanwhile. A connection of its own: a pooled one would be handed to other queries and forget the LISTEN.
 * Returns the function that stops listening.
 */
export function listenToInstances(channel: Channel, onNotice: () => void): () => void {
  let stopped = false;
  let current: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const client = new pg.Client({ connectionString: getEnv().DATABASE_URL });
    current = client;
    let lost = false;
    const reconnect = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (!stopped)
        console.error(
          `cluster: listening to ${channel} stopped (${error?.message ?? "connection closed"}); connecting again`,
        );
      client.removeAllListeners("notification");
      void client.end().catch(() => undefined);
      if (current === client) current = null;
      if (stopped) return;
      retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
      retry.unref();
    };
    client.on("error", reconnect);
    client.on("end", () => reconnect());
    client.on("notification", (message) => {
      if (message.channel === channel) onNotice();
    });
    try {
      await client.connect();
      // The channel is one of this module's constants, never input.
      await client.query(`LISTEN ${channel}`);
      onNotice();
    } catch (error) {
      reconnect(error as Error);
    }
  };
  void connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    void current?.end().catch(() => undefined);
  };
}

import { getDb } from "../db";

/**
 * The record of fetches of the central bank's page (RateFetch): one row per attempt, written when it ends,
 * for GET /rates/status. Kept for RETENTION_DAYS: an hourly schedule writes ~2,200 rows in that time.
 */
const RETENTION_DAYS = 90;

export type FetchTrigger = "schedule" | "request";

export type FetchOutcome =
  | { outcome: "stored" | "refreshed"; valueDate: string; dollar: string; currencies: string[] }
  | { outcome: "failed"; failureKind: string; detail: string };

export interface FetchRecord {
  trigger: string;
  startedAt: Date;
  finishedAt: Date;
  outcome: string;
  valueDate: string | null;
  dollar: string | null;
  currencies: string | null;
  failureKind: string | null;
  detail: string | null;
}

/** Records how a fetch ended. Never throws: a record that cannot be written must not fail or undo the fetch. */
export async function recordFetch(trigger: FetchTrigger, startedAt: Date, result: FetchOutcome): Promise<void> {
  try {
    await writeRecord(trigger, startedAt, result);
  } catch (error) {
    console.warn(`rates: could not record a fetch (${result.outcome}): ${(error as Error).message}`);
  }
}

async function writeRecord(trigger: FetchTrigger, startedAt: Date, result: FetchOutcome): Promise<void> {
  const finishedAt = new Date();
  const data =
    result.outcome === "failed"
      ? { outcome: "failed", failureKind: result.failureKind, detail: result.detail.slice(0, 2000) }
      : {
          outcome: result.outcome,
          valueDate: result.valueDate,
          dollar: result.dollar,
          currencies: result.currencies.join(","),
        };
  const db = getDb();
  await db.rateFetch.create({ data: { trigger, startedAt, finishedAt, ...data } });
  await db.rateFetch.deleteMany({
    where: { finishedAt: { lt: new Date(finishedAt.getTime() - RETENTION_DAYS * 86_400_000) } },
  });
}

const fields = {
  trigger: true,
  startedAt: true,
  finishedAt: true,
  outcome: true,
  valueDate: true,
  dollar: true,
  currencies: true,
  failureKind: true,
  detail: true,
} as const;

/** The newest successful fetch (stored or refreshed) and the newest failure. */
export async function findLastFetches(): Promise<{ success: FetchRecord | null; failure: FetchRecord | null }> {
  const db = getDb();
  const [success, failure] = await Promise.all([
    db.rateFetch.findFirst({
      where: { outcome: { in: ["stored", "refreshed"] } },
      orderBy: { finishedAt: "desc" },
      select: fields,
    }),
    db.rateFetch.findFirst({ where: { outcome: "failed" }, orderBy: { finishedAt: "desc" }, select: fields }),
  ]);
  return { success, failure };
}

import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { resolveDatabaseUrl, sqliteFileOf } from "../db/database-url";

/**
 * The one validated view of the environment. Every setting has a default that works on a fresh machine;
 * an invalid value stops the start with a message naming the variable.
 */
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const timeZone = z.string().refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  },
  { message: "must be an IANA time zone such as America/Caracas" },
);

/** An instance's name: what a host name and a port make, nothing a path or a URL would read differently. */
export const INSTANCE_NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._:-]{0,98}[A-Za-z0-9])?$/;

export const envSchema = z.object({
  NODE_ENV: z
    .enum(["development", "production", "test"])
    .default("development")
    .describe("Set by Next.js: production under `npm start`, development under `npm run dev`."),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return resolveDatabaseUrl(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    })
    .describe(
      "The database: a SQLite file (`file:./data/app.db` when unset; its folder is the data folder), or `postgresql://user:password@host:5432/db` for PostgreSQL 15+, which several instances may share.",
    ),
  DATA_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Where the server keeps its pid file (one server per data folder) and, on SQLite, its generated secret. Unset: the SQLite file's folder, or ./data on PostgreSQL.",
    ),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000).describe("The HTTP port."),
  INSTANCE_NAME: z
    .string()
    .regex(
      INSTANCE_NAME_PATTERN,
      "must be 1-100 letters, digits, dots, dashes, underscores or colons, such as build-1:3000",
    )
    .optional()
    .describe(
      "This instance's name among those sharing one database: a build's `host` is the instance that claimed and runs it. Unset: the machine's host name and PORT (build-1:3000), unique as long as two instances do not share both.",
    ),
  INSTANCE_LOST_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .min(3)
    .max(3600)
    .default(30)
    .describe(
      "An instance whose heartbeat (six within this) is older is lost: another fails the builds it had in progress. Also the lease of the jobs that run once across the cluster. Small values are for tests.",
    ),
  INSTANCE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((value) => {
      if (!URL.canParse(value)) return true; // z.url() has named the problem already
      const url = new URL(value);
      return !url.username && !url.password && !url.search && !url.hash && url.pathname === "/";
    }, "must be an origin only, such as http://10.0.0.11:3000 (no path, query or credentials)")
    .transform((value) => (URL.canParse(value) ? new URL(value).origin : value))
    .optional()
    .describe(
      "Where the other instances reach this one, an origin only (http://10.0.0.11:3000): they forward to it the requests about the builds it runs (logs, cancel, sleep, wake, DELETE). Unset: none can.",
    ),
  NEXTAUTH_SECRET: z
    .string()
    .min(32, "must be at least 32 characters")
    .optional()
    .describe(
      "Signs and encrypts tokens and sessions (32+ characters). Unset on SQLite: generated on first start and kept in the data folder; required on PostgreSQL, the same on every instance.",
    ),
  NEXTAUTH_URL: z
    .url()
    .optional()
    .describe("The public URL of the application, when behind a proxy. Unset: taken from the request."),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "The address people reach the application at, for links it sends elsewhere (a build's page in a commit status). Unset: NEXTAUTH_URL; without either, statuses carry no link.",
    ),
  ACCESS_TOKEN_EXPIRE_MINUTES: positiveInt(30).describe("The lifetime of bearer tokens and browser sessions."),
  PASSWORD_HASH_COST: z.coerce
    .number()
    .int()
    .min(10)
    .max(15)
    .default(12)
    .describe(
      "bcrypt's cost for new password hashes, 10 to 15: at 12 a registration or a sign-in costs about 300 ms of CPU, each step doubles or halves it. Ten is the least OWASP advises; stored hashes keep the cost they were made with.",
    ),
  RATES_TIMEZONE: timeZone.default("America/Caracas").describe('What "today" means for the rates: an IANA time zone.'),
  BCV_URL: z
    .url()
    .default("https://www.bcv.org.ve/")
    .describe(
      "The central bank's page the rates are read from (a local stand-in for tests and offline work: `npm run bcv:serve`).",
    ),
  BCV_TIMEOUT_MS: positiveInt(10_000).describe("How long one attempt to read the bank's page may take."),
  BCV_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .describe("Retries of a transient failure of the bank's page, with backoff."),
  BCV_RETRY_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(1_000)
    .describe("The wait before the first retry of the bank's page; each further retry waits twice as long."),
  RATES_FETCH_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(3600)
    .describe(
      "How often the rates are fetched and stored (the bank publishes once a business day, in the afternoon). 0 turns the schedule off: the rate is then fetched only through POST /rates/.",
    ),
  RATES_RETRY_BASE_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(30)
    .describe(
      "After a scheduled fetch fails, the next try comes this soon, then twice as late each time (30 s, 1 min, 2 min, ...), never later than RATES_FETCH_INTERVAL_SECONDS: a bank down at start is not left for a whole interval.",
    ),
  RATES_STALE_AFTER: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a time of day HH:MM, such as 17:00")
    .default("17:00")
    .describe(
      "The bank's usual publication time (HH:MM in RATES_TIMEZONE): past it on a business day, the next business day's rate is due, and GET /rates/status says stale until it is stored.",
    ),
  RATES_HOLIDAYS: z
    .string()
    .default("")
    .transform((list, ctx) => {
      const dates = list
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);
      for (const date of dates) {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(date))
          ctx.addIssue({ code: "custom", message: `"${date}" is not a YYYY-MM-DD date` });
      }
      return new Set(dates);
    })
    .describe(
      "Comma-separated YYYY-MM-DD weekdays on which the bank publishes nothing (holidays): not counted as missed.",
    ),
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default("")
    .describe(
      "Comma-separated hosts rate webhooks may reach although they are loopback, private or link-local: IP addresses (matched as resolved) or names (matched as written). Empty: none.",
    ),
  WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .describe("How long one delivery attempt of a rate webhook may take."),
  WEBHOOK_RETRY_BASE_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(30_000)
    .describe("The wait before a webhook delivery's first retry; four times as long after each, at most 6 h."),
  WEBHOOK_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(20)
    .default(8)
    .describe("Delivery attempts of one rate webhook event in all."),
  WEBHOOK_POLL_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(600_000)
    .default(2_000)
    .describe("How often the webhook dispatcher looks for new value dates and due deliveries."),
  BUILDS_CONFIG: z
    .string()
    .min(1)
    .default("builds.config.yaml")
    .describe("The build service's configuration file (docs/configuration.md, builds.config.yaml)."),
  HOOK_BODY_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(60_000)
    .default(10_000)
    .describe(
      "How long a git host's webhook body (POST /hooks/<alias>) may take to arrive; past it a 408, and its slot (8 bodies at once) is free again. GitHub itself gives up on a delivery after 10 s; a host's body arrives in well under a second.",
    ),
  LOG_STREAMS_MAX: positiveInt(200).describe(
    "Log streams (GET /builds/<id>/logs/stream) open at once in all; past it a 503 with Retry-After.",
  ),
  LOG_STREAMS_PER_CLIENT: positiveInt(10).describe(
    "Log streams open at once per client address; past it a 503 with Retry-After.",
  ),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024)
    .describe("The largest JSON or form request body read (413 past it); the application's own bodies are a few KB."),
  WORKBOOK_READ_TIMEOUT_MS: positiveInt(20_000).describe(
    "How long decoding one uploaded workbook may take before it is stopped and refused (422); the bank's largest takes well under a second.",
  ),
  WORKBOOK_MAX_WAITING_READS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(8)
    .describe(
      "Uploaded workbooks that may wait for one of the two decoding threads; one more is answered 503 with Retry-After.",
    ),
  ADMIN_EMAILS: z
    .string()
    .default("")
    .transform(
      (list) =>
        new Set(
          list
            .split(",")
            .map((email) => email.trim().toLowerCase())
            .filter(Boolean),
        ),
    )
    .describe(
      "Comma-separated emails that are admins whatever their stored role, honored only with REGISTRATION=closed (with open registration anyone could register a listed address first; ignored, with a warning at start).",
    ),
  REGISTRATION: z
    .enum(["open", "closed"])
    .default("open")
    .describe("closed: only a signed-in admin creates users (POST /users/); the very first user can always register."),
  TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((list, ctx) => {
      const addresses = list
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);
      for (const address of addresses) {
        if (net.isIP(address) === 0) ctx.addIssue({ code: "custom", message: `"${address}" is not an IP address` });
      }
      return new Set(addresses.map(normalizeAddress));
    })
    .describe(
      "Comma-separated IP addresses of reverse proxies whose X-Forwarded-For is believed, and their X-Forwarded-Proto: https (answers then carry Strict-Transport-Security).",
    ),
  RATES_CACHE_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(60)
    .describe(
      "The max-age of the public rate reads: how long a browser or the HTTP cache in front (deploy/nginx/) may serve a rate without asking again, so how late a new rate may show through them.",
    ),
  RATES_EXPORT_IDLE_SECONDS: z.coerce
    .number()
    .min(1)
    .max(3600)
    .default(60)
    .describe(
      "A history export (CSV, NDJSON) whose reader takes nothing for this long is cut off: a stalled reader holds neither the export nor its database reads.",
    ),
  RATES_EXPORT_MAX_STREAMS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(8)
    .describe(
      "At most this many history exports stream at once in one server; one more is answered 503 with Retry-After (the JSON history is not limited).",
    ),
  BACKUP_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      "SQLite: back the database up into this folder on a schedule (app-<UTC time>.db and its secret beside it). Unset: no scheduled backups (`npm run backup -- FILE` still makes one by hand).",
    ),
  BACKUP_INTERVAL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 24)
    .default(24)
    .describe(
      "How often the scheduled backup runs (fractions allowed; at most 576, the longest delay a Node timer takes), the first an interval after the start.",
    ),
  BACKUP_KEEP: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(7)
    .describe("How many scheduled backups are kept; older ones are removed."),
  METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters")
    .optional()
    .describe(
      "The bearer token a Prometheus scraper sends to GET /metrics (16+ characters). Unset: /metrics answers 404.",
    ),
});

export type Env = Omit<z.infer<typeof envSchema>, "DATA_DIR" | "INSTANCE_NAME"> & {
  NEXTAUTH_SECRET: string;
  /** INSTANCE_NAME, or the machine's host name and PORT. */
  INSTANCE_NAME: string;
  /** The folder that holds the pid file and, on SQLite, the database file and the generated secret. */
  DATA_DIR: string;
};

export class InvalidEnvironmentError extends Error {}

let cached: Env | undefined;

/** Reads, validates and caches the environment. Throws InvalidEnvironmentError naming each bad variable. */
export function getEnv(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new InvalidEnvironmentError(`Invalid environment:\n${lines.join("\n")}`);
  }
  const sqliteFile = sqliteFileOf(parsed.data.DATABASE_URL);
  const dataDir = path.resolve(parsed.data.DATA_DIR ?? (sqliteFile !== null ? path.dirname(sqliteFile) : "data"));
  // On PostgreSQL several instances share one database, so they must share one secret: a generated one, kept
  // on one machine's disk, would sign every instance's sessions differently.
  if (sqliteFile === null && parsed.data.NEXTAUTH_SECRET === undefined) {
    throw new InvalidEnvironmentError(
      "Invalid environment:\n  NEXTAUTH_SECRET: required when DATABASE_URL is PostgreSQL (every instance must use the same one)",
    );
  }
  const instanceName = parsed.data.INSTANCE_NAME ?? `${os.hostname()}:${parsed.data.PORT}`;
  if (!INSTANCE_NAME_PATTERN.test(instanceName)) {
    throw new InvalidEnvironmentError(
      `Invalid environment:\n  INSTANCE_NAME: the default made of this machine's host name and PORT ("${instanceName}") is not a valid ` +
        "instance name; set INSTANCE_NAME to 1-100 letters, digits, dots, dashes, underscores or colons",
    );
  }
  cached = {
    ...parsed.data,
    INSTANCE_NAME: instanceName,
    DATA_DIR: dataDir,
    NEXTAUTH_SECRET: parsed.data.NEXTAUTH_SECRET ?? readOrCreateSecret(dataDir),
  };
  // next-auth reads these two from process.env itself. Without NEXTAUTH_URL it must trust the Host header,
  // or it would build its URLs for localhost:3000 whatever PORT the app serves on.
  process.env.NEXTAUTH_SECRET = cached.NEXTAUTH_SECRET;
  if (cached.ADMIN_EMAILS.size > 0 && cached.REGISTRATION === "open") {
    console.warn(
      "ADMIN_EMAILS is ignored while REGISTRATION=open (anyone could register a listed address first): set " +
        "REGISTRATION=closed, or make an existing user an admin with `npm run users:admin -- EMAIL`.",
    );
  }
  if (!cached.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";
  return cached;
}

/**
 * What build processes inherit from the server's environment: the search path, home and locale, and the
 * Docker client's settings (DOCKER_HOST and friends), so that runtimes may live on another Docker host.
 */
export function buildProcessBaseEnv(): Record<string, string> {
  const inherited: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: process.env.LANG ?? "C.UTF-8",
  };
  for (const name of [
    "HOME",
    "DOCKER_HOST",
    "DOCKER_CONTEXT",
    "DOCKER_CONFIG",
    "DOCKER_CERT_PATH",
    "DOCKER_TLS_VERIFY",
  ]) {
    const value = process.env[name];
    if (value !== undefined) inherited[name] = value;
  }
  return inherited;
}

/**
 * A variable the builds configuration names (webhook_secret_env): its value, or undefined when unset or
 * empty. Kept here so that process.env is read in this file only.
 */
export function readNamedVariable(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** An IPv4 address as IPv6 dual-stack sockets report it (::ffff:10.0.0.1) is the IPv4 address. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return (mapped ? mapped[1] : address).toLowerCase();
}

/** Forgets the cached environment; tests that change process.env call it. */
export function resetEnvCache(): void {
  cached = undefined;
}

/**
 * A secret generated on first start and kept beside the database (mode 0600), so that tokens and sessions
 * survive restarts without anyone setting NEXTAUTH_SECRET by hand.
 */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, "nextauth-secret");
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // "wx" fails when the file exists, so two processes starting at once agree on the first one's secret.
    fs.writeFileSync(file, crypto.randomBytes(48).toString("base64url"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = fs.readFileSync(file, "utf8").trim();
  // An empty or truncated file (a full disk at first start, a bad copy) would let the app start and then
  // fail every sign-in; stop the start instead and say what to do.
  if (secret.length < 32) {
    throw new InvalidEnvironmentError(
      `Invalid environment:\n  NEXTAUTH_SECRET: the secret file ${file} holds ${secret.length} characters, at least 32 are needed; ` +
        "delete the file to have a new secret generated (this signs everyone out) or set NEXTAUTH_SECRET.",
    );
  }
  return secret;
}

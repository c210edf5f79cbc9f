import path from "node:path";

export const DEFAULT_DATABASE_URL = "file:./data/app.db";

/** The two databases the app runs on; DATABASE_URL's scheme picks one at start (lib/db/index.ts). */
export type DatabaseDialect = "sqlite" | "postgresql";

const POSTGRESQL_SCHEMES = ["postgresql:", "postgres:"];

/**
 * The database URL that the app, the migration step and the tests all use. A SQLite `file:` URL (the default)
 * gets an absolute path, resolved against the working directory (the project root under `npm start`), so every
 * caller opens the same file; a `postgresql://` URL is kept as given. Anything else is refused.
 */
export function resolveDatabaseUrl(raw: string | undefined): string {
  const url = raw && raw.trim() !== "" ? raw.trim() : DEFAULT_DATABASE_URL;
  if (databaseDialect(url) === "postgresql") {
    // Parsed here so that a malformed URL stops the start with its name, not the first query.
    if (!URL.canParse(url)) {
      throw new Error(
        "DATABASE_URL is not a valid URL; a PostgreSQL one reads postgresql://user:password@host:5432/db",
      );
    }
    return url;
  }
  return `file:${databaseFilePath(url)}`;
}

/** Which database a resolved URL points at. */
export function databaseDialect(url: string): DatabaseDialect {
  if (POSTGRESQL_SCHEMES.some((scheme) => url.startsWith(scheme))) return "postgresql";
  if (url.startsWith("file:")) return "sqlite";
  throw new Error(
    `DATABASE_URL must be a SQLite file URL such as ${DEFAULT_DATABASE_URL} or a PostgreSQL URL such as postgresql://host/db, got "${url}"`,
  );
}

/**
 * The database's file, absolute, when the URL names one (SQLite); null when it names a server (PostgreSQL), which
 * several instances may share and whose own tools back it up. What a caller outside lib/db/ asks instead of the
 * dialect.
 */
export function sqliteFileOf(url: string): string | null {
  return databaseDialect(url) === "sqlite" ? databaseFilePath(url) : null;
}

/** The file path of a `file:` SQLite URL, absolute. */
export function databaseFilePath(url: string): string {
  if (!url.startsWith("file:")) {
    throw new Error(`DATABASE_URL must be a SQLite file URL such as ${DEFAULT_DATABASE_URL}, got "${url}"`);
  }
  const withoutScheme = url.slice("file:".length).split("?")[0];
  return path.resolve(withoutScheme);
}

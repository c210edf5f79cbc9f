import path from "node:path";

export const DEFAULT_DATABASE_URL = "file:./data/app.db";

/**
 * The SQLite URL that the app, the migration step and the tests all use. Relative paths are resolved against
 * the working directory (the project root under `npm start`), so every caller opens the same file.
 */
export function resolveDatabaseUrl(raw: string | undefined): string {
  const url = raw && raw.trim() !== "" ? raw.trim() : DEFAULT_DATABASE_URL;
  return `file:${databaseFilePath(url)}`;
}

/** The file path of a `file:` SQLite URL, absolute. */
export function databaseFilePath(url: string): string {
  if (!url.startsWith("file:")) {
    throw new Error(`DATABASE_URL must be a SQLite file URL such as ${DEFAULT_DATABASE_URL}, got "${url}"`);
  }
  const withoutScheme = url.slice("file:".length).split("?")[0];
  return path.resolve(withoutScheme);
}

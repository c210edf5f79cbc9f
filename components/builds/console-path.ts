/**
 * The builds console's address. Its page lives in app/builds-console/ (a page and the API's route handler cannot
 * share app/builds/), and proxy.ts serves it at /builds to a browser; links and the drawer's query string use this.
 */
export const BUILDS_CONSOLE_PATH = "/builds";

/** The console's page of errors found in the builds' logs (GET /builds/errors sends a browser there). */
export const BUILD_ERRORS_PATH = "/build-errors";

/** The console with a build's drawer open: a build's page for people. */
export function consoleHrefOf(buildId: string): string {
  return `${BUILDS_CONSOLE_PATH}?build=${encodeURIComponent(buildId)}`;
}

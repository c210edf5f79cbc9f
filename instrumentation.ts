/**
 * Runs once when the server starts. Validates the environment first, so that a bad setting stops the start
 * with its name, then starts the background work of the Node.js runtime (jobs.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { dropOutputWithoutReader } = await import("./lib/server/log-pipes");
  dropOutputWithoutReader();
  const { getEnv } = await import("./lib/server/env");
  const { DATA_DIR } = getEnv();
  const { claimDataFolder } = await import("./lib/server/pid-file");
  claimDataFolder(DATA_DIR);
  const { installSocketAddressStamp } = await import("./lib/http/client-address");
  installSocketAddressStamp();
  // After the stamp, so that it runs first: a refused method is answered before anything else looks at it.
  const { installMethodGuard } = await import("./lib/http/method-guard");
  installMethodGuard();
  const { startBackgroundJobs } = await import("./jobs");
  await startBackgroundJobs();
}

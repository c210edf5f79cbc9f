import fs from "node:fs";
import path from "node:path";
import type { BuildsConfig } from "./config";

/** A build's folder: <builds_root>/<build_id>/{sources,logs,runtime}. */
export function workspacePaths(config: BuildsConfig, buildId: string) {
  const root = path.join(config.builds_root, buildId);
  return {
    root,
    sources: path.join(root, "sources"),
    logs: path.join(root, "logs"),
    runtime: path.join(root, "runtime"),
  };
}

/**
 * The absolute path of a log file a build recorded, or null when the recorded name would lead outside the
 * build's logs folder. Log reads go through here only.
 */
export function recordedLogPath(config: BuildsConfig, buildId: string, logFile: string | null): string | null {
  if (!logFile || !/^[a-z]+\.log$/.test(logFile)) return null;
  const logs = workspacePaths(config, buildId).logs;
  const resolved = path.resolve(logs, logFile);
  return path.dirname(resolved) === logs ? resolved : null;
}

/** Removes what a runtime needs and keeps the logs. */
export function removeRuntimeFiles(config: BuildsConfig, buildId: string): void {
  const paths = workspacePaths(config, buildId);
  fs.rmSync(paths.runtime, { recursive: true, force: true });
  fs.rmSync(paths.sources, { recursive: true, force: true });
}

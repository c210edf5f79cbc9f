import fs from "node:fs";
import http from "node:http";

/**
 * An SSE client that reads the response head, then stops reading: the socket stays open and its receive
 * buffer fills, as with a stalled browser tab or a hostile client.
 */
export interface StalledStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  close(): void;
}

export function openStalledStream(url: string, headers: Record<string, string> = {}): Promise<StalledStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      // Not one byte of the body is read; only the head, which Node has parsed already.
      response.pause();
      resolve({ status: response.statusCode ?? 0, headers: response.headers, close: () => request.destroy() });
    });
    request.on("error", reject);
  });
}

/** A process's resident memory in bytes (Linux). */
export function residentBytes(pid: number): number {
  const match = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/** A process's CPU time so far in seconds (user + system, Linux). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export const MB = 1024 * 1024;

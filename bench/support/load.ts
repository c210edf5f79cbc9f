import { execFileSync } from "node:child_process";
import fs from "node:fs";
import autocannon from "autocannon";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/**
 * CPU time (user + system, ms) used so far by every live process of a process group, from /proc. Per request,
 * it says what a request costs the server whatever else runs on the machine, where requests per second only
 * say what it got done with the CPU it was given.
 */
export function processGroupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces): state ppid pgrp ... utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** One load measurement: autocannon as a library, a warm-up first, then the measured window. */
export interface LoadResult {
  url: string;
  requestsPerSecond: number;
  /** Requests answered in the measured window. */
  requests: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Non-2xx answers and socket errors/timeouts in the measured window: a figure with errors is not a figure. */
  errors: number;
  non2xx: number;
  bytesPerRequest: number;
  /** The server's CPU time per answered request, in microseconds (when its process group was given). */
  cpuMicrosPerRequest?: number;
}

export interface LoadOptions {
  connections?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
  headers?: Record<string, string>;
  /** The server's process group, for cpuMicrosPerRequest. */
  serverProcessGroup?: number;
}

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export async function measureLoad(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const { connections = 64, durationSeconds = 8, warmupSeconds = 2, headers, serverProcessGroup } = options;
  if (warmupSeconds > 0) await run({ url, connections, duration: warmupSeconds, headers });
  const cpuBefore = serverProcessGroup === undefined ? 0 : processGroupCpuMs(serverProcessGroup);
  const result = await run({ url, connections, duration: durationSeconds, headers });
  const cpuMs = serverProcessGroup === undefined ? undefined : processGroupCpuMs(serverProcessGroup) - cpuBefore;
  return {
    url,
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytesPerRequest: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
    cpuMicrosPerRequest:
      cpuMs === undefined || result.requests.total === 0
        ? undefined
        : Math.round((cpuMs * 1000) / result.requests.total),
  };
}

import autocannon from "autocannon";

/** One load measurement: autocannon as a library, a warm-up first, then the measured window. */
export interface LoadResult {
  url: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Non-2xx answers and socket errors/timeouts in the measured window: a figure with errors is not a figure. */
  errors: number;
  non2xx: number;
  bytesPerRequest: number;
}

export interface LoadOptions {
  connections?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
  headers?: Record<string, string>;
}

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export async function measureLoad(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const { connections = 64, durationSeconds = 8, warmupSeconds = 2, headers } = options;
  if (warmupSeconds > 0) await run({ url, connections, duration: warmupSeconds, headers });
  const result = await run({ url, connections, duration: durationSeconds, headers });
  return {
    url,
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytesPerRequest: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
  };
}

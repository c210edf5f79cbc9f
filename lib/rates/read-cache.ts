import { answerCached, type CachedAnswer, cachedAnswer, serializedJson, serializedText } from "../http/cache";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";
import { todayIn } from "./dates";
import { RATE_SOURCE_HEADERS } from "./source";
import { ratesVersion } from "./version";

/**
 * The rate reads' cache: per request path and query, the serialised body, its ETag and its answers' headers. A hit
 * costs no query, no serialisation, no hashing and no assembling of headers; a 304 costs no more than a string
 * comparison. Bounded (least recently used
 * entries go first, by count and by bytes).
 *
 * Correctness first: every write of rates calls invalidateRateReads() after it commits, and every read also
 * checks the rates' version (lib/rates/version.ts, moved by triggers on every change to the rates), so a
 * change committed by any other connection (the import command, a script) empties the cache too, and writes
 * to other tables (builds, sign-ins) do not. A read that started before an invalidation never stores what it read.
 * Concurrent misses of one key share one query ("single flight"), so a cold 10-year history under load is
 * computed once, not once per connection.
 */
const MAX_ENTRIES = 512;
const MAX_BYTES = 32 * 1024 * 1024;

interface CacheState {
  entries: Map<string, CachedAnswer>;
  bytes: number;
  /** Changes on every invalidation; an entry read in an older epoch is never stored. */
  epoch: number;
  ratesVersion: number | undefined;
  /** Version reads started, and the newest one whose answer was taken: an older answer arriving late is ignored. */
  versionReadsStarted: number;
  versionReadTaken: number;
  inFlight: Map<string, Promise<CachedAnswer>>;
  today: { value: string; computedAt: number } | undefined;
}

// On globalThis: Next bundles the route handlers apart from instrumentation's jobs (the scheduled fetch), and
// an invalidation from either must reach the one cache.
const globalForCache = processWide<{ rateReadCache?: CacheState }>("rateReadCache", () => ({}));

function cache(): CacheState {
  globalForCache.rateReadCache ??= {
    entries: new Map(),
    bytes: 0,
    epoch: 0,
    ratesVersion: undefined,
    versionReadsStarted: 0,
    versionReadTaken: 0,
    inFlight: new Map(),
    today: undefined,
  };
  return globalForCache.rateReadCache;
}

/** Forgets every cached rate read. Call it after every committed write of rates (POST /rates/, imports). */
export function invalidateRateReads(): void {
  const state = cache();
  state.entries.clear();
  state.inFlight.clear();
  state.bytes = 0;
  state.epoch++;
}

/**
 * The current epoch, after emptying the cache when the rates changed since the last look. On PostgreSQL the
 * version is read over the network and reads overlap: only an answer newer than the last one taken counts. On
 * SQLite the version is read at once, and so is the epoch.
 */
function currentEpoch(): number | Promise<number> {
  const state = cache();
  const read = ++state.versionReadsStarted;
  const version = ratesVersion();
  return typeof version === "number"
    ? epochAfter(state, read, version)
    : version.then((answer) => epochAfter(state, read, answer));
}

function epochAfter(state: CacheState, read: number, version: number): number {
  if (read > state.versionReadTaken) {
    state.versionReadTaken = read;
    if (version !== state.ratesVersion) {
      if (state.ratesVersion !== undefined) invalidateRateReads();
      state.ratesVersion = version;
    }
  }
  return state.epoch;
}

/**
 * "Today" in RATES_TIMEZONE, recomputed at most once a second: reads whose answer depends on it (the default
 * history range) are cached per day, and the Intl formatting is not free.
 */
function today(): string {
  const state = cache();
  const now = Date.now();
  if (!state.today || now - state.today.computedAt >= 1000) {
    state.today = { value: todayIn(getEnv().RATES_TIMEZONE, new Date(now)), computedAt: now };
  }
  return state.today.value;
}

/** Path and query of a request URL, without building a URL object. */
function pathAndQuery(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  return start < 0 ? "/" : url.slice(start);
}

function store(key: string, entry: CachedAnswer): void {
  const state = cache();
  const previous = state.entries.get(key);
  if (previous) {
    state.entries.delete(key);
    state.bytes -= previous.json.body.byteLength;
  }
  if (entry.json.body.byteLength > MAX_BYTES) return;
  state.entries.set(key, entry);
  state.bytes += entry.json.body.byteLength;
  // A Map iterates in insertion order and hits re-insert: the first keys are the least recently used.
  for (const [oldest, evicted] of state.entries) {
    if (state.entries.size <= MAX_ENTRIES && state.bytes <= MAX_BYTES) break;
    state.entries.delete(oldest);
    state.bytes -= evicted.json.body.byteLength;
  }
}

function load(
  key: string,
  epoch: number,
  read: () => Promise<unknown>,
  serialize: (body: unknown) => CachedAnswer,
): Promise<CachedAnswer> {
  const state = cache();
  const running = state.inFlight.get(key);
  if (running) return running;
  const flight = read().then(serialize);
  state.inFlight.set(key, flight);
  flight.then(
    (entry) => {
      if (state.inFlight.get(key) === flight) state.inFlight.delete(key);
      // Stored only if nobody emptied the cache meanwhile. A commit during the query that nobody has seen
      // yet needs no second look here: the next read's version check sees it and empties the cache first.
      if (state.epoch === epoch) store(key, entry);
    },
    () => {
      if (state.inFlight.get(key) === flight) state.inFlight.delete(key);
    },
  );
  return flight;
}

type ReadOptions = { perDay?: boolean; headers?: Record<string, string>; contentType?: string };

/**
 * Answers a public rate read from the cache, calling `read` (the unchanged service call, whose errors pass
 * through as problems and are never cached) on a miss. `perDay`: the answer depends on today's date.
 * `headers`: more headers for the answer (CORS, say); the rates' source (lib/rates/source.ts) is always named.
 * `contentType`: `read` answers text of that type (an SVG badge, an HTML card) instead of a value sent as JSON.
 * A hit on SQLite answers at once, without a promise: under load every promise a request makes costs it the
 * async hooks' bookkeeping too (Next's AsyncLocalStorage runs on them in Node 20).
 */
export function serveRateRead(
  request: Request,
  read: () => Promise<unknown>,
  options: ReadOptions = {},
): Response | Promise<Response> {
  const key = options.perDay ? `${pathAndQuery(request.url)}\0${today()}` : pathAndQuery(request.url);
  const epoch = currentEpoch();
  return typeof epoch === "number"
    ? answer(request, key, epoch, read, options)
    : epoch.then((current) => answer(request, key, current, read, options));
}

function answer(
  request: Request,
  key: string,
  epoch: number,
  read: () => Promise<unknown>,
  options: ReadOptions,
): Response | Promise<Response> {
  const state = cache();
  const entry = state.entries.get(key);
  if (entry) {
    state.entries.delete(key);
    state.entries.set(key, entry);
    return answerCached(request, entry);
  }
  const cacheOptions = {
    maxAgeSeconds: getEnv().RATES_CACHE_MAX_AGE_SECONDS,
    headers: { ...RATE_SOURCE_HEADERS, ...options.headers },
    contentType: options.contentType,
  };
  const serialize = (body: unknown) =>
    cachedAnswer(options.contentType ? serializedText(String(body)) : serializedJson(body), cacheOptions);
  return load(key, epoch, read, serialize).then((loaded) => answerCached(request, loaded));
}

/** For tests and the benchmark: what the cache holds. */
export function rateReadCacheStats(): { entries: number; bytes: number; epoch: number } {
  const state = cache();
  return { entries: state.entries.size, bytes: state.bytes, epoch: state.epoch };
}

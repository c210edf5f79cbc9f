/**
 * Shares one read among the callers that asked for it before it started, and only them: a caller that asks
 * while a read is on its way waits for the next one, which starts when that one ends. Every answer a caller
 * gets was therefore read after the caller asked, so it holds whatever was committed before: a write whose
 * answer a client had before sending the request that asks here (through this instance or any other) is seen.
 * Sharing the read on its way would not be: it may have been read before that write committed.
 *
 * What it saves: under load, one read (a round trip to PostgreSQL) serves every request that arrived during the
 * previous one, instead of one each. An idle caller waits for nothing more than its own read.
 */
export function freshReads<T>(read: () => Promise<T>): () => Promise<T> {
  let waiting: { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } | undefined;
  let reading = false;

  const start = () => {
    reading = true;
    // The batch closes, and `read` is called, a microtask later: callers in the same turn join it, and
    // whatever it reads is as fresh as every one of them asked for.
    queueMicrotask(() => {
      const batch = waiting!;
      waiting = undefined;
      Promise.resolve()
        .then(read)
        .then(batch.resolve, batch.reject)
        .finally(() => {
          reading = false;
          if (waiting) start();
        });
    });
  };

  return () => {
    if (!waiting) {
      let resolve!: (value: T) => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      waiting = { promise, resolve, reject };
    }
    const joined = waiting.promise;
    if (!reading) start();
    return joined;
  };
}

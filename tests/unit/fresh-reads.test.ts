import { describe, expect, it } from "vitest";
import { freshReads } from "@/lib/db/fresh-reads";

/**
 * lib/db/fresh-reads.ts, which shares the rates' version read on PostgreSQL among concurrent requests
 * (lib/rates/version.ts). A "store" here is a value that writes change; each read takes its value when it
 * starts and answers when the test lets it, as a query's snapshot is taken when it runs and answers a round
 * trip later.
 */
function slowStore() {
  let value = 0;
  const reads: { valueAtStart: number; answer: () => void; fail: (error: Error) => void }[] = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const valueAtStart = value;
      reads.push({ valueAtStart, answer: () => resolve(valueAtStart), fail: reject });
    });
  return {
    read,
    reads,
    write: () => ++value,
    /** Lets the microtasks run: a read starts one microtask after it is due. */
    settle: () => new Promise((resolve) => setImmediate(resolve)),
  };
}

describe("freshReads", () => {
  it("gives the callers that asked before a read started that one read", async () => {
    const store = slowStore();
    const version = freshReads(store.read);
    const answers = Promise.all([version(), version(), version()]);
    await store.settle();
    expect(store.reads).toHaveLength(1);
    store.reads[0].answer();
    expect(await answers).toEqual([0, 0, 0]);
  });

  it("makes a caller that asks while a read is on its way wait for the next read, which sees a write committed before it asked", async () => {
    const store = slowStore();
    const version = freshReads(store.read);
    const first = version();
    await store.settle();
    // A write commits, and its answer reaches a client, while the first read (which started before it) is on its way.
    store.write();
    const second = version();
    const third = version();
    await store.settle();
    expect(store.reads).toHaveLength(1);
    store.reads[0].answer();
    expect(await first).toBe(0);
    await store.settle();
    // The callers that asked meanwhile share one new read, started after they asked.
    expect(store.reads).toHaveLength(2);
    store.reads[1].answer();
    expect(await second).toBe(1);
    expect(await third).toBe(1);
  });

  it("starts at once when no read is on its way, and fails only the callers of a failed read", async () => {
    const store = slowStore();
    const version = freshReads(store.read);
    const failed = version();
    await store.settle();
    const next = version();
    store.reads[0].fail(new Error("connection lost"));
    await expect(failed).rejects.toThrow("connection lost");
    await store.settle();
    expect(store.reads).toHaveLength(2);
    store.reads[1].answer();
    expect(await next).toBe(0);
    // Idle again: the next caller's read starts at once.
    const alone = version();
    await store.settle();
    expect(store.reads).toHaveLength(3);
    store.reads[2].answer();
    expect(await alone).toBe(0);
  });
});

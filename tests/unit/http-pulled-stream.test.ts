import { describe, expect, it } from "vitest";
import { streamPulledText } from "@/lib/http/pulled-stream";

// The stream behind the history exports (lib/rates/export.ts): pages are made only as the reader takes them,
// and a reader that stops taking them is cut off after the idle bound, its generator closed.
function pages(count = Infinity) {
  const made = { pages: 0, closed: false };
  async function* lines() {
    try {
      for (let page = 0; page < count; page++) {
        made.pages++;
        yield `page ${page}\n`;
      }
    } finally {
      made.closed = true;
    }
  }
  return { made, lines: lines() };
}

const text = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);

describe("streamPulledText", () => {
  it("makes a page only when the reader has taken the one before (one waits at most)", async () => {
    const { made, lines } = pages();
    const reader = streamPulledText(lines, 60_000).getReader();
    expect(text((await reader.read()).value)).toBe("page 0\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Page 0 taken, page 1 waiting in the queue: nothing more is made however long the reader waits.
    expect(made.pages).toBe(2);
    expect(text((await reader.read()).value)).toBe("page 1\n");
    await reader.cancel();
    expect(made.closed).toBe(true);
  });

  it("ends with the lines", async () => {
    const { made, lines } = pages(3);
    const chunks: string[] = [];
    const reader = streamPulledText(lines, 60_000).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(text(next.value));
    expect(chunks).toEqual(["page 0\n", "page 1\n", "page 2\n"]);
    expect(made.closed).toBe(true);
  });

  it("a reader that keeps taking pages, each within the bound, gets them all", async () => {
    const { lines } = pages(8);
    const reader = streamPulledText(lines, 5_000).getReader();
    let count = 0;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      count++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(count).toBe(8);
  });

  it("a reader that stops taking pages is cut off after the idle bound: the stream errors and no more lines are made", async () => {
    const { made, lines } = pages();
    const reader = streamPulledText(lines, 300).getReader();
    await reader.read();
    await expect(reader.closed).rejects.toThrow("the client took nothing for 0.3 s: the response is cut off");
    expect(made.closed).toBe(true);
    expect(made.pages).toBe(2);
  });

  it("says once that it is over, however it ends: read to the end, cut off idle, canceled, or a line that fails", async () => {
    const ends = { done: 0, idle: 0, canceled: 0, failed: 0 };
    const read = streamPulledText(pages(2).lines, 60_000, () => ends.done++).getReader();
    while (!(await read.read()).done);
    const idle = streamPulledText(pages().lines, 200, () => ends.idle++).getReader();
    await expect(idle.closed).rejects.toThrow(/cut off/);
    const canceled = streamPulledText(pages().lines, 60_000, () => ends.canceled++).getReader();
    await canceled.read();
    await canceled.cancel();
    await canceled.cancel();
    async function* failing(): AsyncGenerator<string, void, undefined> {
      yield "page 0\n";
      throw new Error("the database went away");
    }
    const failed = streamPulledText(failing(), 60_000, () => ends.failed++).getReader();
    await failed.read();
    await expect(failed.read()).rejects.toThrow("the database went away");
    expect(ends).toEqual({ done: 1, idle: 1, canceled: 1, failed: 1 });
  });
});

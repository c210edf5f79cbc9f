import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

let builds: BuildsApp;
let chatty: BuildJson;
let installLog: string;
beforeAll(async () => {
  builds = await startBuildsApp(makeBuildsFixture((fixture) => fixtureConfig(fixture)));
  const created = (await (
    await builds.post({ repository: "demo", ref: "main", modules: ["chatty"] })
  ).json()) as BuildJson;
  chatty = await builds.waitForStatus(created.build_id, ["running", "failed"]);
  // What the install script printed: its pid, two lines, then 2,500 lines of 100 bytes.
  installLog = (await (await builds.get(`/builds/${chatty.build_id}/logs?stage=install&offset=0`)).json()).content;
  const rest = await (await builds.get(`/builds/${chatty.build_id}/logs?stage=install&offset=100000`)).json();
  const last = await (await builds.get(`/builds/${chatty.build_id}/logs?stage=install&offset=200000`)).json();
  installLog += rest.content + last.content;
});
afterAll(() => tearDownBuilds(builds));

const logs = (query: string) => builds.get(`/builds/${chatty.build_id}/logs${query}`);

describe("GET /builds/{build_id}/logs", () => {
  it("without offset answers the last 100,000 bytes, truncated", async () => {
    expect(Buffer.byteLength(installLog)).toBeGreaterThan(250_000);
    const size = Buffer.byteLength(installLog);
    const tail = await (await logs("?stage=install")).json();
    expect(tail).toMatchObject({
      build_id: chatty.build_id,
      stage: "install",
      offset: size - 100_000,
      next_offset: size,
      size,
      truncated: true,
      complete: true,
    });
    expect(Buffer.byteLength(tail.content)).toBe(100_000);
    expect(tail.content).toBe(
      Buffer.from(installLog)
        .subarray(size - 100_000)
        .toString(),
    );
  });

  it("with an offset answers at most 100,000 bytes from there, and next_offset continues it", async () => {
    const first = await (await logs("?stage=install&offset=0")).json();
    expect(first).toMatchObject({ offset: 0, next_offset: 100_000, truncated: true });
    expect(first.content.startsWith("pid=")).toBe(true);
    const middle = await (await logs("?stage=install&offset=12345")).json();
    expect(middle.offset).toBe(12345);
    expect(middle.content).toBe(Buffer.from(installLog).subarray(12345, 112345).toString());
    const end = await (await logs(`?stage=install&offset=${Buffer.byteLength(installLog)}`)).json();
    expect(end).toMatchObject({ content: "", truncated: false, next_offset: Buffer.byteLength(installLog) });
  });

  it("without a stage answers all of them under '== stage ==' headings", async () => {
    const all = await (await logs("?offset=0")).json();
    expect(all.stage).toBeNull();
    expect(all.content.startsWith("== checkout ==\n$ checkout demo main at ")).toBe(true);
    const whole = await (await logs("")).json();
    expect(whole.truncated).toBe(true);
    expect(Buffer.byteLength(whole.content)).toBeLessThanOrEqual(100_000);
    for (const stage of ["test", "start", "healthcheck"]) expect(whole.content).toContain(`== ${stage} ==\n`);
    // The running build's start log is the runtime's: it can still grow.
    expect(whole.complete).toBe(false);
  });

  it("answers 404 for a stage the build does not have, 400 for a malformed one, 400 past the end", async () => {
    const missing = await logs("?stage=deploy");
    expect(missing.status).toBe(404);
    expect((await missing.json()).detail).toMatch(/no stage "deploy"/);
    for (const stage of ["..%2F..%2Fetc%2Fpasswd", "Install", "install.log"]) {
      expect((await logs(`?stage=${stage}`)).status).toBe(400);
    }
    expect((await logs("?stage=install&offset=-1")).status).toBe(400);
    expect((await logs("?stage=install&offset=abc")).status).toBe(400);
    const past = await logs("?stage=install&offset=99999999");
    expect(past.status).toBe(400);
    expect((await past.json()).detail).toMatch(/past the end of the log/);
  });
});

/** Reads an SSE response to its end (or until `until` holds), parsing events. */
async function readEvents(response: Response, until?: (events: SseEvent[]) => boolean) {
  const events: SseEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let boundary: number;
    while ((boundary = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const event: SseEvent = { event: "message", id: null, data: [], comment: null };
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) event.comment = line.slice(1).trim();
        else if (line.startsWith("event: ")) event.event = line.slice(7);
        else if (line.startsWith("id: ")) event.id = Number(line.slice(4));
        else if (line.startsWith("data: ")) event.data.push(line.slice(6));
      }
      events.push(event);
    }
    if (until?.(events)) {
      await reader.cancel();
      break;
    }
  }
  return events;
}
type SseEvent = { event: string; id: number | null; data: string[]; comment: string | null };

describe("GET /builds/{build_id}/logs/stream", () => {
  const stream = (stage: string, headers: Record<string, string> = {}) =>
    builds.get(`/builds/${chatty.build_id}/logs/stream?stage=${stage}`, { headers });

  it("streams the stage's log as events whose id is the byte offset after them, then an end event", async () => {
    const response = await stream("install");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    const end = events.at(-1)!;
    expect(end.event).toBe("end");
    expect(JSON.parse(end.data.join("\n"))).toMatchObject({ stage: "install", status: "succeeded" });
    const messages = events.filter((event) => event.event === "message");
    expect(messages.at(-1)!.id).toBe(Buffer.byteLength(installLog));
    expect(messages.map((event) => event.data.join("\n")).join("")).toBe(installLog);
  });

  it("resumes from Last-Event-ID", async () => {
    const size = Buffer.byteLength(installLog);
    const resumeAt = size - 1_000;
    const events = await readEvents(await stream("install", { "Last-Event-ID": String(resumeAt) }));
    const messages = events.filter((event) => event.event === "message");
    expect(messages.map((event) => event.data.join("\n")).join("")).toBe(
      Buffer.from(installLog).subarray(resumeAt).toString(),
    );
    expect(messages.at(-1)!.id).toBe(size);
    expect(events.at(-1)!.event).toBe("end");
  });

  it("keeps the start log of a running build open (no end) while the runtime lives, and follows it", async () => {
    const response = await stream("start");
    const events = await readEvents(response, (seen) =>
      seen.some((event) => event.data.some((line) => line.startsWith("listening on"))),
    );
    expect(events.some((event) => event.event === "end")).toBe(false);
  });

  it("answers 400 without a stage and 404 for a stage the build does not have", async () => {
    expect((await builds.get(`/builds/${chatty.build_id}/logs/stream`)).status).toBe(400);
    expect((await stream("deploy")).status).toBe(404);
  });
});

describe("GET /builds/{build_id}/logs/raw", () => {
  it("answers a stage's whole log as a plain-text attachment, every byte of it", async () => {
    const response = await builds.get(`/builds/${chatty.build_id}/logs/raw?stage=install`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="build-${chatty.build_id}-install.log"`,
    );
    // More than one window's worth (250,000 bytes and up), whole.
    expect(await response.text()).toBe(installLog);
  });

  it("without a stage answers every stage under its heading; 404 for a stage the build lacks", async () => {
    const all = await (await builds.get(`/builds/${chatty.build_id}/logs/raw`)).text();
    expect(all.startsWith("== checkout ==\n")).toBe(true);
    expect(all).toContain(`== install ==\n${installLog}`);
    expect((await builds.get(`/builds/${chatty.build_id}/logs/raw?stage=deploy`)).status).toBe(404);
    expect((await builds.get(`/builds/${chatty.build_id}/logs/raw?stage=..%2Fetc`)).status).toBe(400);
  });
});

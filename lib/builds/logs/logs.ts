import fs from "node:fs";
import { badRequest, notFound } from "../../http/problem";
import { getBuildsConfig } from "../config";
import { onBuildChanged } from "../events";
import type { BuildRecord } from "../repository";
import { findBuild } from "../repository";
import { recordedLogPath } from "../runtime/workspace";
import { type BuildLogView, LOG_WINDOW_BYTES } from "../schemas";
import { requireBuild } from "../service";
import { type BuildStatus, isStageLogGrowing, type StageName, type StageStatus } from "../status";
import { watchLogFile } from "./log-streams";

/**
 * Reading stage logs by byte offsets, as JSON windows and as Server-Sent Events. Only the log files a build
 * recorded in its stages (below its own logs folder) are ever opened.
 */
type StageRecord = BuildRecord["stages"][number];

/** A part of a log document: a stage's file, or the `== stage ==` heading of the combined log. */
interface Segment {
  length: number;
  read(from: number, to: number): Buffer;
}

function fileSegment(file: string | null): Segment {
  if (!file) return { length: 0, read: () => Buffer.alloc(0) };
  let length = 0;
  try {
    length = fs.statSync(file).size;
  } catch {
    /* not written yet */
  }
  return {
    length,
    read(from, to) {
      const buffer = Buffer.alloc(to - from);
      const fd = fs.openSync(file, "r");
      try {
        const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, from);
        return buffer.subarray(0, bytesRead);
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

function textSegment(text: string): Segment {
  const bytes = Buffer.from(text);
  return { length: bytes.length, read: (from, to) => bytes.subarray(from, to) };
}

function readSegments(segments: Segment[], from: number, to: number): Buffer {
  const parts: Buffer[] = [];
  let base = 0;
  for (const segment of segments) {
    const start = Math.max(from, base);
    const end = Math.min(to, base + segment.length);
    if (start < end) parts.push(segment.read(start - base, end - base));
    base += segment.length;
  }
  return Buffer.concat(parts);
}

/** Bytes at the start that continue a character begun before the window. */
function leadingContinuationBytes(bytes: Buffer): number {
  let count = 0;
  while (count < Math.min(3, bytes.length) && (bytes[count] & 0xc0) === 0x80) count++;
  return count;
}

/** The length of `bytes` without a trailing character that is cut short (the rest comes with the next read). */
function completeCharactersLength(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Up to `limit` bytes of the document from `offset`, or its tail without one; never a split character. */
function readWindow(segments: Segment[], offset: number | undefined, limit = LOG_WINDOW_BYTES) {
  const size = segments.reduce((sum, segment) => sum + segment.length, 0);
  if (offset !== undefined && offset > size) {
    throw badRequest(`offset ${offset} is past the end of the log (${size} bytes).`, [
      { field: "query.offset", message: `must be at most ${size}` },
    ]);
  }
  let start = offset ?? Math.max(0, size - limit);
  const end = Math.min(size, start + limit);
  let bytes = readSegments(segments, start, end);
  if (offset === undefined && start > 0) {
    const skip = leadingContinuationBytes(bytes);
    start += skip;
    bytes = bytes.subarray(skip);
  }
  bytes = bytes.subarray(0, completeCharactersLength(bytes));
  return { start, bytes, size };
}

function isLogComplete(build: BuildRecord, stage: StageRecord): boolean {
  return !isStageLogGrowing(build.status as BuildStatus, stage.name, stage.status as StageStatus);
}

function requireStage(build: BuildRecord, name: string): StageRecord {
  const stage = build.stages.find((candidate) => candidate.name === name);
  if (!stage) {
    throw notFound(
      `Build ${build.id} has no stage "${name}"; its stages are ${build.stages.map((s) => s.name).join(", ")}.`,
    );
  }
  return stage;
}

function stageSegmentPath(build: BuildRecord, stage: StageRecord): string | null {
  return recordedLogPath(getBuildsConfig(), build.id, stage.logFile);
}

function stageSegment(build: BuildRecord, stage: StageRecord): Segment {
  return fileSegment(stageSegmentPath(build, stage));
}

/** GET /builds/{id}/logs: one stage's log, or all of them each under a `== stage ==` heading. */
export async function readBuildLog(buildId: string, query: { stage?: string; offset?: number }): Promise<BuildLogView> {
  const build = await requireBuild(buildId);
  let segments: Segment[];
  let complete: boolean;
  if (query.stage !== undefined) {
    const stage = requireStage(build, query.stage);
    segments = [stageSegment(build, stage)];
    complete = isLogComplete(build, stage);
  } else {
    const written = build.stages.filter((stage) => stage.logFile !== null);
    segments = written.flatMap((stage) => [textSegment(`== ${stage.name} ==\n`), stageSegment(build, stage)]);
    complete = build.stages.every((stage) => isLogComplete(build, stage));
  }
  const { start, bytes, size } = readWindow(segments, query.offset);
  const end = start + bytes.length;
  return {
    build_id: build.id,
    stage: (query.stage as StageName | undefined) ?? null,
    offset: start,
    next_offset: end,
    size,
    content: bytes.toString("utf8"),
    truncated: query.offset === undefined ? start > 0 : end < size,
    complete,
  };
}

const SSE_PING_MS = 15_000;
/** One event's bytes at most: what a stream holds in memory at a time, whatever the log's size. */
const SSE_CHUNK_BYTES = 64 * 1024;
/** Where a log file cannot be watched, how often a stream looks at it instead. */
const SSE_UNWATCHED_LOOK_MS = 1_000;

function sseData(bytes: Buffer, offset: number): string {
  const data = bytes
    .toString("utf8")
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join("");
  return `id: ${offset}\n${data}\n`;
}

async function readChunk(file: string, from: number, length: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, from);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function fileSize(file: string | null): Promise<number> {
  if (!file) return 0;
  try {
    return (await fs.promises.stat(file)).size;
  } catch {
    return 0;
  }
}

/**
 * GET /builds/{id}/logs/stream: a stage's log as Server-Sent Events. Each event carries the bytes after the
 * previous one as `data` lines, with `id` the byte offset after it, so `Last-Event-ID` resumes exactly; a
 * `: ping` comment keeps idle connections open; an `end` event follows the last bytes once the stage is over.
 *
 * The stream is pulled: the next event is made only when the client has taken the previous one (Next writes
 * a chunk, waits for the socket to drain, then pulls), so a client that stops reading holds one chunk of at
 * most 64 KB, not the log. Between events it sleeps until the log file changes (one watcher per file, shared)
 * or the build does (../events.ts); the database is read again only then, or with each ping.
 * `release` is called once when the stream ends, however it ends.
 */
export async function streamBuildLog(
  buildId: string,
  stageName: string,
  lastEventId: string | null,
  signal: AbortSignal,
  release: () => void = () => {},
): Promise<ReadableStream<Uint8Array>> {
  let build = await requireBuild(buildId);
  let stage = requireStage(build, stageName);
  let offset = lastEventId !== null && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : 0;
  const encoder = new TextEncoder();

  let buildChanged = false;
  let fileChanged = false;
  let wake: (() => void) | null = null;
  const rouse = () => {
    wake?.();
    wake = null;
  };
  const stopBuildEvents = onBuildChanged(buildId, () => {
    buildChanged = true;
    rouse();
  });
  let watchedFile: string | null = null;
  let stopWatching: (() => void) | null = null;
  const watch = (file: string | null) => {
    if (file === watchedFile) return;
    stopWatching?.();
    watchedFile = file;
    stopWatching = file
      ? watchLogFile(file, () => {
          fileChanged = true;
          rouse();
        })
      : null;
  };
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    stopBuildEvents();
    watch(null);
    signal.removeEventListener("abort", finish);
    rouse();
    release();
  };
  signal.addEventListener("abort", finish, { once: true });
  // A client gone before the follow began: its abort has fired already.
  if (signal.aborted) finish();

  /** Waits for news of the file or the build, or `ms`. */
  const waitForNews = (ms: number) =>
    new Promise<void>((resolve) => {
      if (finished || buildChanged || fileChanged) return resolve();
      const timer = setTimeout(() => rouse(), ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** The next event of the stream, or null at its end. */
  const nextEvent = async (): Promise<string | null> => {
    const lastSent = Date.now();
    while (!finished) {
      if (buildChanged) {
        buildChanged = false;
        const fresh = await findBuild(buildId);
        if (!fresh) return null;
        build = fresh;
        stage = requireStage(build, stageName);
      }
      const file = stageSegmentPath(build, stage);
      watch(file);
      // Completion is read before the file, so every byte written before the stage ended gets sent.
      const complete = isLogComplete(build, stage);
      fileChanged = false;
      const size = await fileSize(file);
      offset = Math.min(offset, size);
      if (file && offset < size) {
        const raw = await readChunk(file, offset, Math.min(SSE_CHUNK_BYTES, size - offset));
        const bytes = raw.subarray(0, completeCharactersLength(raw));
        if (bytes.length > 0) {
          offset += bytes.length;
          return sseData(bytes, offset);
        }
      }
      if (complete) {
        return `event: end\nid: ${offset}\ndata: ${JSON.stringify({ stage: stage.name, status: stage.status, size: offset })}\n\n`;
      }
      const quiet = SSE_PING_MS - (Date.now() - lastSent);
      if (quiet <= 0) {
        // Also the moment to look at the build again, in case news of it came from outside this process.
        buildChanged = true;
        return ": ping\n\n";
      }
      // Without a file (the stage has not started) news of the build wakes the stream.
      await waitForNews(file && !stopWatching ? Math.min(quiet, SSE_UNWATCHED_LOOK_MS) : quiet);
    }
    return null;
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const event = await nextEvent();
          if (finished) return;
          if (event === null) {
            finish();
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(event));
          if (event.startsWith("event: end\n")) {
            finish();
            controller.close();
          }
        } catch (error) {
          if (finished) return;
          finish();
          controller.error(error);
        }
      },
      cancel: finish,
    },
    // One event waits in the stream at most; the next is made when the client has taken it.
    new CountQueuingStrategy({ highWaterMark: 1 }),
  );
}

/**
 * GET /builds/{id}/logs/raw: the whole log of a stage (or of every stage under its `== stage ==` heading) as
 * plain text to download, read in chunks so a long log never sits in memory at once. The size is fixed when
 * asked: what a running stage writes after that comes with the next download.
 */
export async function rawBuildLog(
  buildId: string,
  stageName?: string,
): Promise<{ fileName: string; size: number; body: ReadableStream<Uint8Array> }> {
  const build = await requireBuild(buildId);
  const segments =
    stageName !== undefined
      ? [stageSegment(build, requireStage(build, stageName))]
      : build.stages
          .filter((stage) => stage.logFile !== null)
          .flatMap((stage) => [textSegment(`== ${stage.name} ==\n`), stageSegment(build, stage)]);
  const size = segments.reduce((sum, segment) => sum + segment.length, 0);
  let position = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (position >= size) return controller.close();
      const end = Math.min(size, position + LOG_WINDOW_BYTES);
      const bytes = readSegments(segments, position, end);
      position = end;
      controller.enqueue(new Uint8Array(bytes));
    },
  });
  return { fileName: `build-${build.id}-${stageName ?? "all"}.log`, size, body };
}

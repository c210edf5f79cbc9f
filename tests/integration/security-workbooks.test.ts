import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { readAllStoredRates } from "../support/rates";
import { registerAndGetToken } from "../support/users";
import { makeLargeWorkbook, Q4_2025, readWorkbook } from "../support/workbooks";

// A workbook is decoded on a worker thread, never on the server's event loop, a few at a
// time, each within a time bound. No timing here: the checks count what the server answered, in what order.

let app: AppServer;
let authorization: Record<string, string>;
let large: Uint8Array;
const WAITING_READS = 1;
beforeAll(async () => {
  // Room for the large file's decode on a busy machine: the bound itself is checked below with a small one.
  // A waiting room of one file (8 by default): two decoding and one waiting are enough to fill it, and each
  // decode costs seconds of CPU.
  app = await startAppServer({ WORKBOOK_READ_TIMEOUT_MS: "180000", WORKBOOK_MAX_WAITING_READS: String(WAITING_READS) });
  ({ authorization } = await registerAndGetToken(app));
  large = makeLargeWorkbook();
  expect(large.byteLength).toBeGreaterThan(4_000_000);
});
afterAll(() => app?.stop());

/** POSTs `bytes` as a raw workbook; `sent` resolves once the whole body is handed to the connection. */
function postWorkbook(server: AppServer, headers: Record<string, string>, bytes: Uint8Array) {
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const answered = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const request = http.request(new URL("/rates/import?name=large.xls", server.baseUrl), {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/vnd.ms-excel", "Content-Length": String(bytes.byteLength) },
      });
      request.on("response", (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      });
      request.on("error", reject);
      request.end(Buffer.from(bytes), markSent);
    },
  );
  return { sent, answered };
}

describe("POST /rates/import decodes workbooks off the event loop", () => {
  it("answers public reads while a large workbook is being decoded, before the import answers", async () => {
    const upload = postWorkbook(app, authorization, large);
    let importAnswered = false;
    const answered = upload.answered.then((result) => {
      importAnswered = true;
      return result;
    });
    await upload.sent;
    // Reads one after another from the moment the server has the whole file until the import answers. On the
    // event loop, the decode (a second or more of CPU) held every read until the file was refused.
    let readsDuringImport = 0;
    while (!importAnswered) {
      const read = await app.fetch("/currencies");
      expect(read.status).toBe(200);
      await read.arrayBuffer();
      if (!importAnswered) readsDuringImport++;
    }
    const result = await answered;
    expect(result.status).toBe(400);
    expect(JSON.parse(result.body).detail).toMatch(/has no sheet with the central bank's reference rates/);
    expect(readsDuringImport).toBeGreaterThanOrEqual(5);
  });

  it("decodes a few files at a time: past the waiting room (WORKBOOK_MAX_WAITING_READS), 503 with Retry-After; the bank's file still imports after", async () => {
    // Five more than two decoding and the room's one waiting.
    const uploads = Array.from(
      { length: 2 + WAITING_READS + 5 },
      () => postWorkbook(app, authorization, large).answered,
    );
    const results = await Promise.all(uploads);
    const statuses = results.map((result) => result.status);
    expect(statuses.every((status) => status === 400 || status === 503)).toBe(true);
    expect(statuses.filter((status) => status === 400).length).toBeGreaterThanOrEqual(2 + WAITING_READS);
    const busy = results.filter((result) => result.status === 503);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    for (const result of busy) {
      expect(result.headers["content-type"]).toBe("application/problem+json");
      expect(Number(result.headers["retry-after"])).toBeGreaterThan(0);
      expect(JSON.parse(result.body).detail).toMatch(/workbooks are being read; try again in a moment/);
    }
    const bank = await postWorkbook(app, authorization, readWorkbook(Q4_2025)).answered;
    expect(bank.status).toBe(200);
    expect(readAllStoredRates(app)).toHaveLength(189);
  }, 240_000);
});

describe("WORKBOOK_READ_TIMEOUT_MS", () => {
  let hasty: AppServer;
  let hastyAdmin: Record<string, string>;
  beforeAll(async () => {
    hasty = await startAppServer({ WORKBOOK_READ_TIMEOUT_MS: "50" });
    hastyAdmin = (await registerAndGetToken(hasty)).authorization;
  });
  afterAll(() => hasty?.stop());

  it("stops a decode that takes longer and refuses the file (400), storing nothing; the server goes on", async () => {
    const result = await postWorkbook(hasty, hastyAdmin, large).answered;
    expect(result.status).toBe(400);
    expect(JSON.parse(result.body).detail).toBe(
      "The file large.xls took more than 50 ms to read; it was stopped. Nothing was stored.",
    );
    expect(readAllStoredRates(hasty)).toEqual([]);
    expect((await hasty.fetch("/currencies")).status).toBe(200);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseJson, parseOptionalJson } from "@/lib/http/request";

const schema = z.strictObject({ seconds: z.number().int().default(60) });

/** A POST as a server receives it: the body a stream (chunked, no Content-Length) unless `bytes` is null. */
function post(body: string | null, headers: Record<string, string> = {}): Request {
  const stream =
    body === null
      ? null
      : new ReadableStream<Uint8Array>({
          start(controller) {
            if (body) controller.enqueue(new TextEncoder().encode(body));
            controller.close();
          },
        });
  return new Request("http://localhost/builds/x/share", {
    method: "POST",
    headers,
    body: stream,
    duplex: "half",
  } as RequestInit);
}

describe("parseOptionalJson (lib/http/request.ts): a JSON body that may be left out", () => {
  it("takes no body at all as the schema's defaults, with or without a Content-Length or a Content-Type", async () => {
    expect(await parseOptionalJson(post(null), schema)).toEqual({ seconds: 60 });
    expect(await parseOptionalJson(post(""), schema)).toEqual({ seconds: 60 });
    expect(await parseOptionalJson(post("", { "Content-Length": "0" }), schema)).toEqual({ seconds: 60 });
    expect(await parseOptionalJson(post("", { "Content-Type": "application/json" }), schema)).toEqual({ seconds: 60 });
  });

  it("reads a body that is there as JSON, under parseJson's rules", async () => {
    expect(await parseOptionalJson(post('{"seconds":5}', { "Content-Type": "application/json" }), schema)).toEqual({
      seconds: 5,
    });
    await expect(
      parseOptionalJson(post('{"seconds":5}', { "Content-Type": "text/plain" }), schema),
    ).rejects.toMatchObject({
      status: 415,
    });
    await expect(parseOptionalJson(post('{"seconds":5}'), schema)).rejects.toMatchObject({ status: 415 });
    await expect(parseOptionalJson(post("{", { "Content-Type": "application/json" }), schema)).rejects.toMatchObject({
      status: 400,
    });
  });

  it("leaves parseJson as it was: a body is required there", async () => {
    await expect(parseJson(post(""), schema)).rejects.toMatchObject({ status: 415 });
    await expect(parseJson(post("", { "Content-Type": "application/json" }), schema)).rejects.toMatchObject({
      status: 400,
    });
  });
});

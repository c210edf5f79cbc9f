import { HttpProblem } from "./problem";

/** 413: the body is larger than an endpoint reads. */
export const contentTooLarge = (detail: string) => new HttpProblem(413, "Content Too Large", detail);

/**
 * The request body, read up to `maxBytes`: a declared Content-Length past it is refused before reading, and a
 * body that grows past it while streaming (no or a false Content-Length) is cut off there. Either way 413,
 * having held at most `maxBytes` in memory.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () => contentTooLarge(`The request body is larger than ${maxBytes} bytes, the most this endpoint reads.`);
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

import { describe, expect, it } from "vitest";
import { cachedJson, serializedJson } from "@/lib/http/cache";

// The rate reads' cache hits (lib/rates/read-cache.ts) answer through cachedJson: the cached bytes must reach the
// reader as they are, not copied for every answer (a 10-year history is 158 KB), and stay whole for the next one.
describe("cachedJson", () => {
  it("answers with the cached bytes themselves, and leaves them whole for every later answer", async () => {
    const json = serializedJson({ rates: Array.from({ length: 2000 }, (_, day) => ({ day, dollar: 36.5 + day })) });
    for (let answer = 0; answer < 3; answer++) {
      const response = cachedJson(new Request("http://localhost/rates/history"), json);
      expect(response.status).toBe(200);
      expect(response.headers.get("etag")).toBe(json.etag);
      const reader = response.body!.getReader();
      const { value } = await reader.read();
      // The same memory as the cache's entry: new Response(bytes) would have handed a copy over.
      expect(value!.buffer).toBe(json.body.buffer);
      expect(value!.byteLength).toBe(json.body.byteLength);
      expect((await reader.read()).done).toBe(true);
    }
    expect(JSON.parse(json.body.toString()).rates).toHaveLength(2000);
  });

  it("answers 304 without a body to a request whose If-None-Match is the cached ETag", () => {
    const json = serializedJson({ dollar: 36.5 });
    const response = cachedJson(
      new Request("http://localhost/rates/", { headers: { "If-None-Match": json.etag } }),
      json,
    );
    expect(response.status).toBe(304);
    expect(response.body).toBeNull();
  });
});

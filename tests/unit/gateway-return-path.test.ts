import { describe, expect, it } from "vitest";
import { safeReturnPath } from "@/lib/gateway/access";

const origin = "http://feature-x--demo.preview.localhost:3899/";

describe("safeReturnPath (lib/gateway/access.ts): where a private preview's admission sends the browser back", () => {
  it("keeps a path of the preview's own site, with its query and fragment", () => {
    for (const path of ["/", "/web", "/web?debug=1#action=42", "/a/../b", "/%2F%2Fevil.localhost", "/x//y", "/.//x"])
      expect(safeReturnPath(path, origin), path).toBe(path);
  });

  it("answers / for another site's address, in the spellings browsers read as one", () => {
    for (const path of [
      "//evil.localhost:3899/pwned",
      "/\\evil.localhost:3899/pwned",
      "/\t/evil.localhost:3899/pwned",
      "/\n/evil.localhost:3899/pwned",
      "/\r\n/evil.localhost",
      "\t//evil.localhost",
      "https://evil.localhost/",
      "http://feature-x--demo.preview.localhost:3899/",
      "javascript:alert(1)",
      " //evil.localhost",
    ])
      expect(safeReturnPath(path, origin), JSON.stringify(path)).toBe("/");
  });

  it("answers / for any control character or backslash, wherever it sits, and for nothing at all", () => {
    for (const path of ["/web\t", "/a\u0000b", "/a\u007fb", "/a\u0085b", "/a\\b", "/a?b=\\c"])
      expect(safeReturnPath(path, origin), JSON.stringify(path)).toBe("/");
    expect(safeReturnPath(undefined, origin)).toBe("/");
    expect(safeReturnPath(null, origin)).toBe("/");
    expect(safeReturnPath("", origin)).toBe("/");
    expect(safeReturnPath(`/${"a".repeat(2048)}`, origin)).toBe("/");
  });
});

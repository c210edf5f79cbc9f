import { describe, expect, it } from "vitest";
import {
  aliasPart,
  branchLabel,
  dashboardUnderPreviewDomain,
  nameUrl,
  previewNamesOf,
  readableLabel,
  readHost,
  refLabel,
  shortHash,
} from "@/lib/builds/preview-names";
import { editDistance } from "@/lib/gateway/live-names";

const gateway = { domain: "preview.example.com", scheme: "http" as const, port: 80 };
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

describe("a build's names behind the gateway", () => {
  it("are its id, and its first repository's branch or pull request, each one label under the domain", () => {
    expect(
      previewNamesOf(gateway, {
        id: "0123456789abcdef",
        repositories: [
          { alias: "demo", ref: "feature-login" },
          { alias: "extras", ref: "main" },
        ],
      }),
    ).toEqual([
      {
        kind: "build",
        name: "0123456789abcdef.preview.example.com",
        url: "http://0123456789abcdef.preview.example.com/",
      },
      {
        kind: "branch",
        name: "feature-login--demo.preview.example.com",
        url: "http://feature-login--demo.preview.example.com/",
      },
    ]);
    expect(refLabel("demo", "refs/pull/12/head")).toBe("pr-12--demo");
    expect(refLabel("demo", "refs/merge-requests/7/head")).toBe("pr-7--demo");
  });

  it("leave the port out where it is the scheme's own", () => {
    expect(nameUrl({ domain: "p.example.com", scheme: "https", port: 443 }, "x.p.example.com")).toBe(
      "https://x.p.example.com/",
    );
    expect(nameUrl({ domain: "p.example.com", scheme: "http", port: 8080 }, "x.p.example.com")).toBe(
      "http://x.p.example.com:8080/",
    );
    expect(nameUrl({ domain: "p.example.com", scheme: "https", port: 80 }, "x.p.example.com")).toBe(
      "https://x.p.example.com:80/",
    );
  });

  it("give branches that would share a name two names, each with a hash of the original", () => {
    const slash = refLabel("demo", "feature/x");
    const dash = refLabel("demo", "feature-x");
    expect(dash).toBe("feature-x--demo");
    expect(slash).toBe(`feature-x-${shortHash("feature/x")}--demo`);
    expect(refLabel("demo", "Feature-X")).toBe(`feature-x-${shortHash("Feature-X")}--demo`);
    expect(new Set([slash, dash, refLabel("demo", "Feature-X"), refLabel("demo", "feature_x")]).size).toBe(4);
  });

  it("never give a branch a pull request's name, nor a hashed name's shape, nor an internationalized one", () => {
    expect(refLabel("demo", "pr-12")).toBe(`pr-12-${shortHash("pr-12")}--demo`);
    // A branch named after another's hashed name does not get that name.
    const hashed = refLabel("demo", "feature/x").replace(/--demo$/, "");
    expect(refLabel("demo", hashed)).not.toBe(refLabel("demo", "feature/x"));
    expect(refLabel("demo", "xn")).not.toMatch(/^xn--/);
    // Ordinary words of six letters after a dash are kept as they stand.
    expect(refLabel("demo", "fix-header")).toBe("fix-header--demo");
  });

  it("hash aliases and branches holding what a host name cannot, and keep every name a DNS label", () => {
    expect(aliasPart("my_addons")).toBe(`my-addons-${shortHash("my_addons")}`);
    expect(aliasPart("a--b")).toBe(`a-b-${shortHash("a--b")}`);
    const long = `feature/${"very-long-branch-name-".repeat(6)}end`;
    for (const [alias, ref] of [
      ["demo", long],
      ["a".repeat(63), long],
      ["demo", "____"],
      ["demo", "ÄÖÜ/ünïcode"],
      ["demo", "release/16.0"],
      ["demo", "-x-"],
    ]) {
      const label = refLabel(alias, ref);
      const [branchPart, aliasLabel, ...rest] = label.split("--");
      expect(rest, label).toEqual([]);
      expect(label.length, label).toBeLessThanOrEqual(63);
      for (const part of [branchPart, aliasLabel]) expect(part, label).toMatch(DNS_LABEL);
    }
    expect(refLabel("demo", long)).not.toBe(refLabel("demo", `${long}2`));
  });
});

describe("readHost", () => {
  it("reads a build's name, a branch's or pull request's name, with the gateway's port or none", () => {
    expect(readHost(gateway, "0123456789abcdef.preview.example.com")).toEqual({
      kind: "build",
      label: "0123456789abcdef",
      buildId: "0123456789abcdef",
    });
    expect(readHost(gateway, "Feature-X--Demo.Preview.Example.com:80")).toEqual({
      kind: "ref",
      label: "feature-x--demo",
      aliasLabel: "demo",
    });
    expect(readHost(gateway, "nothing.preview.example.com")).toMatchObject({ kind: "unknown" });
    expect(readHost(gateway, "a.b.preview.example.com")).toMatchObject({ kind: "unknown" });
    expect(readHost(gateway, `${"a".repeat(64)}.preview.example.com`)).toMatchObject({ kind: "unknown" });
  });

  it("refuses hosts elsewhere, IP literals, other ports, trailing dots, unicode and junk", () => {
    for (const host of [
      "example.com",
      "preview.example.com.evil.com",
      "xpreview.example.com",
      "127.0.0.1",
      "127.0.0.1:80",
      "[::1]",
      "0123456789abcdef.preview.example.com:8080",
      "0123456789abcdef.preview.example.com.",
      "0123456789abcdef.preview.example.com:",
      "bücher.preview.example.com",
      "a b.preview.example.com",
      "a/../b.preview.example.com",
      "a\r\nx: y.preview.example.com",
      `${"a.".repeat(200)}preview.example.com`,
      "",
    ])
      expect(readHost(gateway, host), JSON.stringify(host)).toMatchObject({ kind: "invalid" });
  });
});

describe("a branch's readable name", () => {
  it("is its text made a DNS label, as people guess it", () => {
    expect(readableLabel("shop", "feature/price-list")).toBe("feature-price-list--shop");
    expect(readableLabel("shop", "Feature/Price_List")).toBe("feature-price-list--shop");
    expect(readableLabel("shop", "/odd//name/")).toBe("odd-name--shop");
    expect(readableLabel("shop", "main")).toBe("main--shop");
    const long = readableLabel("shop", `feature/${"x".repeat(80)}`)!;
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(DNS_LABEL);
  });

  it("is none for a pull request, or a text that would read as a pull request's or a hashed part", () => {
    expect(readableLabel("shop", "refs/pull/12/head")).toBeNull();
    expect(readableLabel("shop", "PR/12")).toBeNull();
    expect(readableLabel("shop", "fix/2abcde")).toBeNull();
    expect(readableLabel("shop", "///")).toBeNull();
    expect(readableLabel("shop", "XN")).toBeNull();
  });

  it("is shown unless another live branch of the repository makes the same, when both keep their hashed names", () => {
    expect(branchLabel("shop", "feature/price-list", ["feature/price-list", "main"])).toBe("feature-price-list--shop");
    expect(branchLabel("shop", "feature/x", ["feature/x", "feature_x"])).toBe(refLabel("shop", "feature/x"));
    expect(branchLabel("shop", "feature_x", ["feature/x", "feature_x"])).toBe(refLabel("shop", "feature_x"));
    // A branch whose text is the label as it stands keeps it; the other gets its hashed name.
    expect(branchLabel("shop", "feature-x", ["feature/x", "feature-x"])).toBe("feature-x--shop");
    expect(branchLabel("shop", "feature/x", ["feature/x", "feature-x"])).toBe(refLabel("shop", "feature/x"));
    expect(refLabel("shop", "feature/x")).not.toBe("feature-x--shop");
    expect(branchLabel("shop", "refs/pull/7/head", [])).toBe("pr-7--shop");
  });

  it("is one of a build's names when it is free", () => {
    const names = previewNamesOf(gateway, { id: "0123456789abcdef", repositories: [{ alias: "shop", ref: "a/b" }] }, [
      "a/b",
    ]);
    expect(names[1]).toMatchObject({ kind: "branch", name: "a-b--shop.preview.example.com" });
  });
});

describe("editDistance", () => {
  it("counts the insertions, deletions and substitutions between two names", () => {
    expect(editDistance("feature-price-list", "feature-price-list")).toBe(0);
    expect(editDistance("feature-price-lst", "feature-price-list")).toBe(1);
    expect(editDistance("main", "feature-x")).toBeGreaterThan(editDistance("feature", "feature-x"));
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("dashboardUnderPreviewDomain", () => {
  it("refuses a dashboard at or under the preview domain, and only those", () => {
    expect(dashboardUnderPreviewDomain(gateway, "https://preview.example.com/")).toMatch(/lies under/);
    expect(dashboardUnderPreviewDomain(gateway, "https://app.preview.example.com")).toMatch(/lies under/);
    expect(dashboardUnderPreviewDomain(gateway, "https://example.com")).toBeNull();
    expect(dashboardUnderPreviewDomain(gateway, "https://notpreview.example.com")).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { prefersHtml } from "@/lib/http/negotiate";

const asking = (accept?: string) =>
  new Request("http://127.0.0.1/builds/x", { headers: accept ? { Accept: accept } : {} });

describe("a page or data: what the Accept header asks for", () => {
  it("a browser's navigation asks for a page", () => {
    expect(
      prefersHtml(asking("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8")),
    ).toBe(true);
  });

  it.each([
    ["the dashboard's fetches", "application/json"],
    ["curl", "*/*"],
    ["no header", undefined],
    ["JSON preferred over HTML", "application/json, text/html;q=0.5"],
    ["HTML refused", "text/html;q=0, */*"],
    ["equal quality", "text/html, application/json"],
  ])("%s get data", (_, accept) => {
    expect(prefersHtml(asking(accept))).toBe(false);
  });
});

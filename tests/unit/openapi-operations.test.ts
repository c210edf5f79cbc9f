import { describe, expect, it } from "vitest";
import { listOperationsByTag } from "@/lib/openapi/operations";

describe("the operations /docs lists where scripts do not run", () => {
  it("groups each path's operations under its first tag, in the document's tag order", () => {
    const document = {
      tags: [{ name: "Rates" }, { name: "Users" }, { name: "Builds" }],
      paths: {
        "/builds": {
          get: { tags: ["Builds"], summary: "List builds" },
          post: { tags: ["Builds"], summary: "Start a build" },
          parameters: [],
        },
        "/rates/": { get: { tags: ["Rates"], summary: "The latest rate" } },
        "/convert": { get: { tags: ["Rates", "Builds"], summary: "Convert an amount" } },
        "/healthz": { get: { summary: "Liveness" } },
      },
    };
    expect(listOperationsByTag(document)).toEqual([
      {
        tag: "Rates",
        operations: [
          { method: "GET", path: "/rates/", summary: "The latest rate" },
          { method: "GET", path: "/convert", summary: "Convert an amount" },
        ],
      },
      {
        tag: "Builds",
        operations: [
          { method: "GET", path: "/builds", summary: "List builds" },
          { method: "POST", path: "/builds", summary: "Start a build" },
        ],
      },
      // Untagged operations last; a tag without operations (Users) is left out.
      { tag: "", operations: [{ method: "GET", path: "/healthz", summary: "Liveness" }] },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import {
  chooseDisplayName,
  DisplayNameTakenError,
  displayNameKey,
  isReservedDisplayName,
} from "@/lib/users/display-names";

// Display names cannot pass for the service or for another user.

describe("displayNameKey", () => {
  it("ignores case, spacing, punctuation, accents, compatibility forms and lookalike letters", () => {
    const key = displayNameKey("build service");
    for (const spelling of [
      "Build Service",
      "BUILD  SERVICE",
      "build-service",
      " build_service. ",
      "ＢＵＩＬＤ ｓｅｒｖｉｃｅ",
      "bυild sеrvicе",
      "bùild sérvice",
      "bui\u0301ld service",
    ]) {
      expect(displayNameKey(spelling), spelling).toBe(key);
    }
    expect(displayNameKey("Ana María")).toBe(displayNameKey("ana maria"));
    expect(displayNameKey("Аna")).toBe(displayNameKey("ana")); // a Cyrillic А
    expect(displayNameKey("ana")).not.toBe(displayNameKey("anna"));
    expect(displayNameKey("---")).toBe("");
  });

  it("reserves the service's own names in every spelling", () => {
    expect(isReservedDisplayName("Build Service")).toBe(true);
    expect(isReservedDisplayName("ＡＤＭＩＮ")).toBe(true);
    expect(isReservedDisplayName("build servicer")).toBe(false);
  });
});

describe("chooseDisplayName", () => {
  it("refuses a name that reads as another user's, naming it", () => {
    expect(() => chooseDisplayName("ANA maría", "x@example.com", ["Ana María"])).toThrow(DisplayNameTakenError);
    expect(() => chooseDisplayName("ANA maría", "x@example.com", ["Ana María"])).toThrow(
      /"ANA maría" is another user's/,
    );
    expect(chooseDisplayName("Ana Mar", "x@example.com", ["Ana María"])).toBe("Ana Mar");
  });

  it("numbers a default name that is taken or reserved", () => {
    expect(chooseDisplayName(undefined, "ana@example.com", [])).toBe("ana");
    expect(chooseDisplayName(undefined, "ana@example.org", ["ana", "Ana-2"])).toBe("ana-3");
    expect(chooseDisplayName(undefined, "admin@example.com", [])).toBe("admin-2");
  });
});

import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { slotsOf } from "@/lib/http/slots";

// The ceiling on history exports streaming at once (lib/rates/export.ts) and whatever else needs one.
describe("slotsOf", () => {
  it("gives at most `capacity` slots, and one again once given back", () => {
    const slots = slotsOf(`test-${crypto.randomUUID()}`, () => 2);
    const first = slots.take();
    const second = slots.take();
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(slots.take()).toBeNull();
    first!();
    expect(slots.inUse()).toBe(1);
    expect(slots.take()).not.toBeNull();
  });

  it("a slot given back twice is counted once", () => {
    const slots = slotsOf(`test-${crypto.randomUUID()}`, () => 1);
    const release = slots.take()!;
    release();
    release();
    expect(slots.inUse()).toBe(0);
    expect(slots.take()).not.toBeNull();
    expect(slots.take()).toBeNull();
  });

  it("one count per kind, shared by every caller that names it", () => {
    const kind = `test-${crypto.randomUUID()}`;
    expect(slotsOf(kind, () => 1).take()).not.toBeNull();
    expect(slotsOf(kind, () => 1).take()).toBeNull();
    expect(slotsOf(`${kind}-other`, () => 1).take()).not.toBeNull();
  });
});

import { processWide } from "../server/process-wide";
/**
 * A ceiling on how many of one kind of work run at once, for work whose cost lasts as long as a client makes it
 * last (a streamed export held open by a reader who stops reading). `take` answers a release function, or null
 * when every slot is taken: the caller answers 503 then rather than queueing, so that nothing it was asked to do
 * waits in memory. Each kind's count is kept on globalThis: the route bundles and instrumentation share it.
 */
export interface Slots {
  /** Takes a slot: a function that gives it back (once, however often it is called), or null when none is free. */
  take(): (() => void) | null;
  /** The slots taken now. */
  inUse(): number;
}

const globalForSlots = processWide<{ slotCounts?: Map<string, { taken: number }> }>("slotCounts", () => ({}));

export function slotsOf(kind: string, capacity: () => number): Slots {
  const counts = (globalForSlots.slotCounts ??= new Map());
  let count = counts.get(kind);
  if (!count) counts.set(kind, (count = { taken: 0 }));
  const state = count;
  return {
    take() {
      if (state.taken >= capacity()) return null;
      state.taken++;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        state.taken--;
      };
    },
    inUse: () => state.taken,
  };
}

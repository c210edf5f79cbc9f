import type { Rate } from "@/lib/swr/types";
import { isGap } from "./gaps";
import { dayToMs } from "./time-axis";

export interface Point {
  date: string;
  /** Null at a gap's middle: the line stops there and starts again after it. */
  dollar: number | null;
  t: number;
}

/** Oldest first, with a null point in the middle of every gap (gaps.ts), so the line is not drawn across it. */
export function chartPoints(rates: Rate[]): Point[] {
  const points: Point[] = [];
  for (const rate of [...rates].reverse()) {
    const previous = points[points.length - 1];
    if (previous && isGap(previous.date, rate.date)) {
      points.push({ date: "", dollar: null, t: (previous.t + dayToMs(rate.date)) / 2 });
    }
    points.push({ date: rate.date, dollar: rate.dollar, t: dayToMs(rate.date) });
  }
  return points;
}

/**
 * The points a line alone would not show, which the chart marks with a dot of their own: the newest rate (the
 * one a person looks for, drawn whole at the right edge), and any rate with a gap on both sides, which a line
 * cannot draw at all (a single rate after months without any).
 */
export function markedPoints(points: Point[]): Point[] {
  return points.filter((point, index) => {
    if (point.dollar === null) return false;
    const newest = index === points.length - 1;
    const alone = (points[index - 1]?.dollar ?? null) === null && (points[index + 1]?.dollar ?? null) === null;
    return newest || alone;
  });
}

/** Display formats shared by the panels. Rates keep every decimal the central bank publishes. */

const rateFormat = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 8 });
const changeFormat = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 8,
  signDisplay: "exceptZero",
});
const percentFormat = new Intl.NumberFormat("en-US", {
  style: "percent",
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: "exceptZero",
});

export const formatRate = (value: number) => rateFormat.format(value);
export const formatChange = (value: number) => changeFormat.format(value);
export const formatPercent = (fraction: number) => percentFormat.format(fraction);

/** A YYYY-MM-DD calendar date, shown without shifting it through a time zone. */
export function formatDay(date: string, style: "long" | "short" = "long"): string {
  const [year, month, day] = date.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day)).toLocaleDateString("en-US", {
    timeZone: "UTC",
    year: style === "long" ? "numeric" : "2-digit",
    month: "short",
    day: "numeric",
  });
}

/** A moment in the viewer's time zone, which it names ("Nov 24, 02:41:07 PM GMT-4"): never a bare clock time. */
export function formatDateTime(iso: string | Date | null | undefined, seconds = true): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString("en-US", {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    ...(seconds ? { second: "2-digit" } : {}),
    timeZoneName: "short",
  });
}

/** "1 h 05 min", "3 min 12 s", "850 ms": the two most significant units. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 60) return `${(ms / 1_000).toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, "0")} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** A TTL choice in seconds as words: 3600 → "1 hour", 86400 → "1 day". */
export function formatTtl(seconds: number): string {
  const units: [number, string][] = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (seconds % size === 0 && seconds >= size) {
      const count = seconds / size;
      return `${count} ${name}${count === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} seconds`;
}

/** How many decimals the most precise of these values has (2 to 8): a column shows them all with as many. */
export function fractionDigitsOf(values: number[]): number {
  let digits = 2;
  for (const value of values) {
    const text = String(value);
    const fraction = text.includes("e") ? 8 : (text.split(".")[1]?.length ?? 0);
    digits = Math.max(digits, Math.min(8, fraction));
  }
  return digits;
}

const fixedFormats = new Map<string, Intl.NumberFormat>();

/**
 * A value with exactly `digits` decimals, so a right-aligned column of tabular figures lines up on the decimal
 * point; `signed` for changes (+0.5, −0.25).
 */
export function formatFixed(value: number, digits: number, signed = false): string {
  const key = `${digits}:${signed}`;
  let format = fixedFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat("en-US", {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      signDisplay: signed ? "exceptZero" : "auto",
    });
    fixedFormats.set(key, format);
  }
  return format.format(value);
}

/** How long ago, in the largest whole unit: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function formatAge(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return `${days} day${days === 1 ? "" : "s"} ago`;
}

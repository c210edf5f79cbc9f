import { useLocale, useTranslations } from "next-intl";
import { useMemo } from "react";
import {
  ageParts,
  formatChange,
  formatDateTime,
  formatDay,
  formatDuration,
  formatFixed,
  formatPercent,
  formatRate,
  formatWeekday,
  ttlParts,
} from "./format";

/** The display formats (components/ui/format.ts) in the page's language, for components to call. */
export function useFormat() {
  const locale = useLocale();
  const t = useTranslations("format");
  return useMemo(
    () => ({
      locale,
      rate: (value: number) => formatRate(value, locale),
      change: (value: number) => formatChange(value, locale),
      percent: (fraction: number) => formatPercent(fraction, locale),
      day: (date: string, style?: "long" | "short") => formatDay(date, locale, style),
      weekday: (date: string) => formatWeekday(date, locale),
      dateTime: (iso: string | Date | null | undefined, seconds?: boolean) => formatDateTime(iso, locale, seconds),
      /** The builds panel's moments: UTC, as the runner's log lines and the forge comments write them. */
      utcDateTime: (iso: string | Date | null | undefined, seconds?: boolean) =>
        formatDateTime(iso, locale, seconds, "UTC"),
      duration: (ms: number) => formatDuration(ms, locale),
      fixed: (value: number, digits: number, signed?: boolean) => formatFixed(value, digits, locale, signed),
      age: (iso: string, now?: number) => t("ago", ageParts(iso, now)),
      ttl: (seconds: number) => t("ttl", ttlParts(seconds)),
    }),
    [locale, t],
  );
}

export type Format = ReturnType<typeof useFormat>;

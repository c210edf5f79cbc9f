"use client";

import { useTranslations } from "next-intl";
import { useFormat } from "@/components/ui/use-format";
import { useNow } from "@/components/ui/use-now";

/** Time left until `expiresAt`, ticking every second; "expired" once past. */
export function ExpiryCountdown({ expiresAt, prefix = "" }: { expiresAt: string | null | undefined; prefix?: string }) {
  const t = useTranslations("builds");
  const format = useFormat();
  const now = useNow(1_000);
  if (!expiresAt) return <span>—</span>;
  const left = new Date(expiresAt).getTime() - now;
  return (
    // Ticking: the server's render (the first paint) and the browser's differ by the moments between them.
    <time dateTime={expiresAt} title={format.utcDateTime(expiresAt)} className="tabular-nums" suppressHydrationWarning>
      {left > 0 ? `${prefix}${format.duration(left)}` : t("expiredShort")}
    </time>
  );
}

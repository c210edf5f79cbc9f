"use client";

import { formatDuration } from "@/components/ui/format";
import { useNow } from "@/components/ui/use-now";

/** Time left until `expiresAt`, ticking every second; "expired" once past. */
export function ExpiryCountdown({ expiresAt, prefix = "" }: { expiresAt: string | null | undefined; prefix?: string }) {
  const now = useNow(1_000);
  if (!expiresAt) return <span>—</span>;
  const left = new Date(expiresAt).getTime() - now;
  return (
    <time dateTime={expiresAt} title={new Date(expiresAt).toLocaleString()} className="tabular-nums">
      {left > 0 ? `${prefix}${formatDuration(left)}` : "expired"}
    </time>
  );
}

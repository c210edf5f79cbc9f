"use client";

import { useTranslations } from "next-intl";
import { useFormat } from "@/components/ui/use-format";
import type { BuildSummary } from "@/lib/swr/types";
import { ExpiryCountdown } from "./expiry-countdown";

/** Statuses before the runtime is up: the time to live has not started (whatever expires_at says). */
const BEFORE_RUNNING = ["queued", "checking_out", "installing", "testing", "starting"];

/**
 * When a build's preview goes away. The time to live starts when the build reaches running: before that
 * it says so, even where an older API already sets expires_at at creation; while running it counts down;
 * afterwards the moment it expired, or nothing once it was destroyed, canceled or failed.
 */
export function BuildExpiry({ build }: { build: BuildSummary }) {
  const t = useTranslations("builds");
  const format = useFormat();
  if (BEFORE_RUNNING.includes(build.status)) {
    return <span className="text-slate-600 dark:text-slate-400">{t("startsWhenRunning")}</span>;
  }
  // A sleeping build's time to live goes on counting.
  if (build.status === "running" || build.status === "sleeping")
    return <ExpiryCountdown expiresAt={build.expires_at} />;
  if (build.status === "expired" && build.expires_at) return <span>{format.utcDateTime(build.expires_at)}</span>;
  return <span>—</span>;
}

/** The heading of the expiry's fact: "Expired" once past, "Expires in" before. */
export function useExpiryLabel(): (build: BuildSummary) => string {
  const t = useTranslations("builds");
  return (build) => (build.status === "expired" ? t("expired") : t("expiresIn"));
}

"use client";

import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { useTransition } from "react";
import { LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE } from "@/i18n/locale";

/**
 * The header's language switch: names the other language in that language ("English" on a Spanish page,
 * "Español" on an English one). The choice is kept in a cookie, which the server reads on every request, so
 * the next page comes already in it; the URL stays the same.
 */
export function LanguageSwitch() {
  const locale = useLocale();
  const t = useTranslations("language");
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const other = locale === "es" ? "en" : "es";
  return (
    <button
      type="button"
      lang={other}
      title={t("switchTitle")}
      aria-busy={pending || undefined}
      data-testid="language-switch"
      onClick={() => {
        // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie, read by the server only.
        document.cookie = `${LOCALE_COOKIE}=${other}; path=/; max-age=${LOCALE_COOKIE_MAX_AGE}; samesite=lax`;
        startTransition(() => router.refresh());
      }}
      className="flex items-center gap-1 rounded-md px-2 py-1 text-sm font-medium whitespace-nowrap text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
    >
      <svg aria-hidden viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.5">
        <circle cx="10" cy="10" r="7.5" />
        <path d="M2.5 10h15M10 2.5c2 2.2 3 4.7 3 7.5s-1 5.3-3 7.5c-2-2.2-3-4.7-3-7.5s1-5.3 3-7.5Z" />
      </svg>
      {/* The code on a phone ("EN"), the name where there is room; the name is what a screen reader says. */}
      <span aria-hidden className="uppercase sm:hidden">
        {other}
      </span>
      <span className="sr-only sm:not-sr-only">{t("switchTo")}</span>
    </button>
  );
}

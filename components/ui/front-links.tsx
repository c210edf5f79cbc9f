"use client";

import { usePathname } from "next/navigation";
import { useTranslations } from "next-intl";

/** The fronts, one per audience, and the API reference: the links every page's header carries. */
const FRONTS = [
  { href: "/", key: "rates" },
  { href: "/builds", key: "builds" },
  { href: "/developers", key: "developers" },
] as const;

/** Where each front lives: the console's page is served at /builds (proxy.ts) from its own folder. */
function frontOf(pathname: string): string {
  if (pathname === "/" || pathname.startsWith("/prices")) return "/";
  if (pathname.startsWith("/builds")) return "/builds";
  if (pathname.startsWith("/developers")) return "/developers";
  return "";
}

/**
 * Plain links, not next/link: a front's page differs in what it loads (the console its builds, /docs Swagger UI),
 * and prefetching them would pull each into the others. Each is at least 24 px tall (WCAG 2.2 target size).
 */
export function FrontLinks() {
  const t = useTranslations("header");
  const current = frontOf(usePathname());
  const linkClass =
    "inline-flex min-h-8 items-center rounded-md px-2 text-sm font-medium whitespace-nowrap text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600 aria-[current=page]:bg-indigo-50 aria-[current=page]:text-indigo-800 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white dark:aria-[current=page]:bg-indigo-950 dark:aria-[current=page]:text-indigo-200";
  return (
    <ul className="flex items-center gap-1">
      {FRONTS.map((front) => (
        <li key={front.href}>
          <a href={front.href} aria-current={current === front.href ? "page" : undefined} className={linkClass}>
            {t(front.key)}
          </a>
        </li>
      ))}
      <li>
        <a href="/docs" className={linkClass}>
          {t("apiDocs")}
        </a>
      </li>
    </ul>
  );
}

import { getTranslations } from "next-intl/server";
import { AuthControls } from "@/components/auth/auth-controls";
import { LanguageSwitch } from "./language-switch";

/** The top bar of every page: the product name, the API docs, the language and the session controls. */
export async function SiteHeader() {
  const t = await getTranslations("header");
  return (
    <header className="print:hidden sticky top-0 z-20 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
      <div className="mx-auto flex h-14 max-w-[1600px] items-center justify-between gap-2 px-4 sm:gap-4 sm:px-6">
        <div className="flex items-center gap-2 sm:gap-6">
          <a href="/" className="flex items-center gap-2 font-semibold tracking-tight whitespace-nowrap">
            <span
              aria-hidden
              className="grid size-7 place-items-center rounded-md bg-indigo-600 text-xs font-bold text-white dark:bg-indigo-400 dark:text-slate-950"
            >
              Bs
            </span>
            {/* Below 768 px the header keeps room for the session buttons; the name stays for screen readers. */}
            <span className="sr-only md:not-sr-only">{t("home")}</span>
          </a>
          <nav aria-label={t("main")}>
            {/* A plain link, not next/link: prefetching /docs would pull Swagger UI's bundle into the dashboard. */}
            <a
              href="/docs"
              className="rounded-md px-2 py-1 text-sm font-medium whitespace-nowrap text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
            >
              {/* "API" on a phone, where the Spanish header has no room for its longer words. */}
              <span className="sm:hidden">{t("api")}</span>
              <span className="hidden sm:inline">{t("apiDocs")}</span>
            </a>
          </nav>
        </div>
        <div className="flex items-center gap-1 sm:gap-3">
          <LanguageSwitch />
          <AuthControls />
        </div>
      </div>
    </header>
  );
}

import { getTranslations } from "next-intl/server";
import { AuthControls } from "@/components/auth/auth-controls";
import { FrontLinks } from "./front-links";
import { LanguageSwitch } from "./language-switch";

/**
 * The top bar of every page: the product's name, the fronts (the rates, the builds console, the integrators'
 * page) and the API docs, the language and the session. On a phone the fronts take a row of their own, under
 * the name and the session buttons, so that none of them is cut or shrunk below a finger's target; the header then
 * scrolls away with the page rather than keep a quarter of the screen.
 */
export async function SiteHeader() {
  const t = await getTranslations("header");
  return (
    <header className="print:hidden z-20 border-b lg:sticky lg:top-0 border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
      <div className="mx-auto flex max-w-[1600px] flex-wrap items-center justify-between gap-x-2 px-4 sm:gap-x-4 sm:px-6 lg:flex-nowrap">
        <a href="/" className="flex h-14 items-center gap-2 font-semibold tracking-tight whitespace-nowrap lg:order-1">
          <span
            aria-hidden
            className="grid size-7 place-items-center rounded-md bg-indigo-600 text-xs font-bold text-white dark:bg-indigo-400 dark:text-slate-950"
          >
            Bs
          </span>
          <span className="max-[359px]:sr-only">{t("home")}</span>
        </a>
        <div className="ml-auto flex items-center gap-1 sm:gap-3 lg:order-3">
          <LanguageSwitch />
          <AuthControls />
        </div>
        <nav
          aria-label={t("main")}
          className="-mx-2 w-full overflow-x-auto pb-2 lg:order-2 lg:mx-0 lg:w-auto lg:flex-1 lg:overflow-visible lg:pb-0"
        >
          <FrontLinks />
        </nav>
      </div>
    </header>
  );
}

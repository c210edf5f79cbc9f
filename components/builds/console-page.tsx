import { getTranslations } from "next-intl/server";
import { BUILD_ERRORS_PATH, BUILDS_CONSOLE_PATH } from "./console-path";

/** The console's own pages; a page of the builds console for teams adds its entry here. */
const CONSOLE_PAGES = [
  { key: "builds", href: BUILDS_CONSOLE_PATH },
  { key: "errors", href: BUILD_ERRORS_PATH },
] as const;

type ConsolePageKey = (typeof CONSOLE_PAGES)[number]["key"];

/** A page of the builds console: its main landmark, the console's title and navigation, then the page's own panels. */
export async function ConsolePage({ current, children }: { current: ConsolePageKey; children: React.ReactNode }) {
  const t = await getTranslations("console");
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-[1600px] flex-col gap-4 px-4 py-4 sm:px-6"
    >
      <div className="flex flex-wrap items-center justify-between gap-x-6 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">{t("title")}</h1>
        <ConsoleNav current={current} />
      </div>
      {children}
    </main>
  );
}

/** The builds console's navigation, under the site's header: the pages of the console, the current one marked. */
async function ConsoleNav({ current }: { current: ConsolePageKey }) {
  const t = await getTranslations("console.pages");
  return (
    <nav aria-label={(await getTranslations("console"))("navigation")}>
      <ul className="flex items-center gap-1 text-sm">
        {CONSOLE_PAGES.map((page) => (
          <li key={page.key}>
            <a
              href={page.href}
              aria-current={page.key === current ? "page" : undefined}
              className="inline-flex min-h-8 items-center rounded-md px-3 font-medium text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 aria-[current=page]:bg-slate-200 aria-[current=page]:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-slate-800 dark:aria-[current=page]:text-white"
            >
              {t(page.key)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

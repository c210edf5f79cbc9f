import { getTranslations } from "next-intl/server";
import { BUILD_ERRORS_PATH, BUILDS_CONSOLE_PATH } from "./console-path";

/** The console's own pages; a page of the builds console for teams adds its entry here. */
const CONSOLE_PAGES = [
  { key: "builds", href: BUILDS_CONSOLE_PATH },
  { key: "errors", href: BUILD_ERRORS_PATH },
] as const;

/** The builds console's navigation, under the site's header: the pages of the console, the current one marked. */
export async function ConsoleNav({ current }: { current: (typeof CONSOLE_PAGES)[number]["key"] }) {
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

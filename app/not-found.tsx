import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("notFoundTitle") };
}

/** Any path that is neither a page nor an API route: our own page, in both colour schemes, with the way back. */
export default async function NotFound() {
  const t = await getTranslations("notFound");
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-xl flex-col items-start gap-4 px-4 py-16 sm:px-6"
    >
      <p className="font-mono text-sm font-semibold text-indigo-700 dark:text-indigo-300">404</p>
      <h1 className="text-2xl font-semibold tracking-tight">{t("heading")}</h1>
      <p className="text-slate-700 dark:text-slate-300">
        {t.rich("body", {
          path: "/builds/<id>",
          code: (chunks) => <code className="font-mono text-sm">{chunks}</code>,
          docs: (chunks) => (
            <a className="text-indigo-700 underline dark:text-indigo-300" href="/docs">
              {chunks}
            </a>
          ),
        })}
      </p>
      <a
        href="/"
        className="inline-flex h-10 items-center rounded-md bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 dark:bg-indigo-400 dark:text-slate-950 dark:hover:bg-indigo-300"
      >
        {t("back")}
      </a>
    </main>
  );
}

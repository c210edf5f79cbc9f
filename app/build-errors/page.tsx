import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { BuildErrorsPanel } from "@/components/builds/build-errors-panel";
import { ConsoleNav } from "@/components/builds/console-nav";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("buildErrors"))("title") };
}

/**
 * The builds console's page of errors found in the logs; GET /builds/errors sends browsers here. Its own folder:
 * app/builds/errors/ is the API's route handler.
 */
export default async function BuildErrorsPage() {
  const t = await getTranslations("console");
  // Laid out as the console's other page (app/builds-console/page.tsx): its title, then its navigation.
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-[1600px] flex-col gap-4 px-4 py-4 sm:px-6"
    >
      <div className="flex flex-wrap items-center justify-between gap-x-6 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">{t("title")}</h1>
        <ConsoleNav current="errors" />
      </div>
      <BuildErrorsPanel />
    </main>
  );
}

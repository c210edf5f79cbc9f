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
export default function BuildErrorsPage() {
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-[1600px] flex-col gap-6 px-4 py-6 sm:px-6"
    >
      <div className="flex flex-wrap items-center justify-end gap-x-6 gap-y-2">
        <ConsoleNav current="errors" />
      </div>
      <BuildErrorsPanel />
    </main>
  );
}

import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { BuildErrorsPanel } from "@/components/builds/build-errors-panel";
import { ConsolePage } from "@/components/builds/console-page";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("buildErrors"))("title") };
}

/**
 * The builds console's page of errors found in the logs; GET /builds/errors sends browsers here. Its own folder:
 * app/builds/errors/ is the API's route handler.
 */
export default function BuildErrorsPage() {
  return (
    <ConsolePage current="errors">
      <BuildErrorsPanel />
    </ConsolePage>
  );
}

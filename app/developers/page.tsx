import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ApiToken } from "@/components/developers/api-token";
import { EmbedPanel } from "@/components/developers/embed-panel";
import { RateWebhooksPanel } from "@/components/developers/rate-webhooks-panel";
import { SelectedCurrencyProvider } from "@/components/rates/selected-currency";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("developersTitle") };
}

/**
 * The integrators' page: a token for the API, the rate webhooks, the badge and the card for another site, and
 * the way to the API's reference. Nothing here is needed to read a rate or to run a build.
 */
export default async function DevelopersPage() {
  const t = await getTranslations("developers");
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-[1600px] flex-col gap-6 px-4 py-6 sm:px-6"
    >
      <div className="flex flex-col gap-2">
        <h1 className="text-xl font-semibold tracking-tight">{t("title")}</h1>
        <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">
          {t.rich("intro", {
            docs: (chunks) => (
              <a href="/docs" className="font-medium text-indigo-700 underline dark:text-indigo-300">
                {chunks}
              </a>
            ),
          })}
        </p>
      </div>
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-2">
        <ApiToken />
        <SelectedCurrencyProvider>
          <EmbedPanel />
        </SelectedCurrencyProvider>
      </div>
      <RateWebhooksPanel />
    </main>
  );
}

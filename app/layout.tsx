import type { Metadata } from "next";
import { NextIntlClientProvider } from "next-intl";
import { getLocale, getTranslations } from "next-intl/server";
import { SessionProvider } from "@/components/auth/session-provider";
import { CurrencySearchNamesProvider } from "@/components/rates/currency-names";
import { SiteHeader } from "@/components/ui/site-header";
import { CURRENCY_SEARCH_NAMES } from "@/i18n/currency-names";
import { readPageSession } from "@/lib/auth/page-session";
import { SwrProvider } from "@/lib/swr/swr-provider";
import "./globals.css";

// Rendered per request: Next.js stamps its inline scripts with the CSP nonce of each response (proxy.ts), and
// the language comes from each request's cookie or Accept-Language (i18n/request.ts).
export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("meta");
  return { title: { default: t("title"), template: `%s · ${t("title")}` }, description: t("description") };
}

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const locale = await getLocale();
  const t = await getTranslations("layout");
  const session = await readPageSession();
  return (
    <html lang={locale}>
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <NextIntlClientProvider>
          <CurrencySearchNamesProvider names={CURRENCY_SEARCH_NAMES}>
            <SessionProvider session={session}>
              <SwrProvider>
                {/* The first tab stop: past the header straight to the page's content. */}
                <a
                  href="#main-content"
                  className="sr-only rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:text-indigo-300"
                >
                  {t("skipToContent")}
                </a>
                <SiteHeader />
                {children}
              </SwrProvider>
            </SessionProvider>
          </CurrencySearchNamesProvider>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}

import type { Metadata } from "next";
import { SessionProvider } from "@/components/auth/session-provider";
import { SiteHeader } from "@/components/ui/site-header";
import { SwrProvider } from "@/lib/swr/swr-provider";
import "./globals.css";

// Rendered per request: Next.js stamps its inline scripts with the CSP nonce of each response (proxy.ts).
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "BCV Rates & Previews", template: "%s · BCV Rates & Previews" },
  description: "Official BCV dollar rates and preview builds",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <SessionProvider>
          <SwrProvider>
            {/* The first tab stop: past the header straight to the page's content. */}
            <a
              href="#main-content"
              className="sr-only rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:text-indigo-300"
            >
              Skip to content
            </a>
            <SiteHeader />
            {children}
          </SwrProvider>
        </SessionProvider>
      </body>
    </html>
  );
}

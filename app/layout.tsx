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
            <SiteHeader />
            {children}
          </SwrProvider>
        </SessionProvider>
      </body>
    </html>
  );
}

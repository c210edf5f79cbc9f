/**
 * The rate as a shop shows it on its own site, written on the server as text: an SVG badge for an <img> and a
 * small HTML card for an <iframe>. No script and nothing loaded from elsewhere, so both can be cached like the
 * API's reads and shown by any page. Each names its source, the central bank, as the bank's terms ask.
 */
import type { Locale } from "@/i18n/locale";
import { translatorFor } from "@/i18n/translator";
import type { CardRates, PublishedRate } from "@/lib/rates/published-rate";
import { RATE_SOURCE, RATE_SOURCE_TERMS_URL } from "@/lib/rates/source";
import { formatDay, formatRate, formatWeekday, withCurrency } from "../ui/format";

/** What the badge and the card say, in the language asked: every number as that language writes it. */
function wordsFor(published: PublishedRate, locale: Locale) {
  const t = translatorFor(locale, "rateCard");
  const code = published.currency;
  const name = currencyName(code, locale);
  return {
    t,
    code,
    name,
    rate: withCurrency(formatRate(published.rate, locale), "VES"),
    date: formatDay(published.date, locale),
  };
}

function currencyName(code: string, locale: Locale): string {
  const names = translatorFor(locale, "currencies");
  return names.has(`names.${code}` as never) ? names(`names.${code}` as never) : code;
}

const escapeMarkup = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * Approximate widths of Verdana at 11 px, the badge's font, per character: the SVG sets each text's length to
 * the estimate (textLength), so a reader's font that runs wider or narrower is fitted rather than cut.
 */
function textWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (/\d/.test(char)) width += 7;
    else if (/[.,:·' ]/.test(char)) width += 3.9;
    else if (/[A-Z]/.test(char)) width += 7.6;
    else width += 6.3;
  }
  return Math.ceil(width);
}

/**
 * A badge in the style of shields.io: "BCV USD" on the left, "Bs. 236,4587 · 26 nov 2026" on the right. Only the
 * rate in force: a page that says "today's rate" must not show tomorrow's.
 */
export function rateBadgeSvg(published: PublishedRate, locale: Locale): string {
  const { t, code, name, rate, date } = wordsFor(published, locale);
  const label = t("badgeLabel", { currency: code });
  const value = t("badgeValue", { rate, date });
  const title = t("badgeTitle", { name, rate, date });
  const [labelText, valueText] = [textWidth(label), textWidth(value)];
  const [left, right] = [labelText + 12, valueText + 12];
  const width = left + right;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${escapeMarkup(title)}">
<title>${escapeMarkup(title)}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#334155"/><rect x="${left}" width="${right}" height="20" fill="#4338ca"/><rect width="${width}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${left / 2}" y="14" textLength="${labelText}" lengthAdjust="spacingAndGlyphs">${escapeMarkup(label)}</text>
<text x="${left + right / 2}" y="14" textLength="${valueText}" lengthAdjust="spacingAndGlyphs">${escapeMarkup(value)}</text>
</g>
</svg>
`;
}

export type EmbedTheme = "light" | "dark" | "auto";

const DARK_COLORS = `body { background: #0f172a; color: #f1f5f9; }
  main { border-color: #334155; }
  .per, .source, .next { color: #94a3b8; }
  .date { color: #cbd5e1; }
  a { color: #a5b4fc; }`;

/** The colours of `theme`: light, dark, or (auto) as the visitor's system is. */
function themeStyles(theme: EmbedTheme): string {
  if (theme === "light") return ":root { color-scheme: light; }";
  if (theme === "dark") return `:root { color-scheme: dark; }\n  ${DARK_COLORS}`;
  return `:root { color-scheme: light dark; }\n@media (prefers-color-scheme: dark) {\n  ${DARK_COLORS}\n}`;
}

/**
 * The card for an iframe (about 320 x 150 px): the currency, the rate in force today in bolívares, its value
 * date and, once the bank has published it ahead, the next rate with the day it comes into force; the source
 * and the terms. Links open in a new tab, out of the frame. Light, dark, or as the visitor's system is (`theme`).
 * Before the currency's first value date (a first fetch in the evening) it says no rate is in force yet, and
 * shows the next one.
 */
export function rateEmbedHtml(rates: CardRates, locale: Locale, theme: EmbedTheme = "light"): string {
  const t = translatorFor(locale, "rateCard");
  const name = currencyName(rates.currency, locale);
  const inForce = rates.inForce && wordsFor(rates.inForce, locale);
  const next = rates.next && {
    rate: withCurrency(formatRate(rates.next.rate, locale), "VES"),
    day: formatWeekday(rates.next.date, locale),
  };
  const rateLines = inForce
    ? `<p class="rate">${escapeMarkup(inForce.rate)}</p>\n<p class="date">${escapeMarkup(t("valueDate", { date: inForce.date }))}</p>`
    : `<p class="date">${escapeMarkup(t("noneInForce"))}</p>`;
  const link = (href: string) => (chunks: string) =>
    `<a href="${escapeMarkup(href)}" target="_blank" rel="noopener noreferrer">${chunks}</a>`;
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(t("title", { name }))}</title>
<style>
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
body { margin: 0; background: #fff; color: #0f172a; }
main { box-sizing: border-box; min-height: 100vh; padding: 12px 14px; border: 1px solid #e2e8f0; border-radius: 10px; }
p, h1 { margin: 0; }
.per { font-size: 13px; font-weight: 400; color: #475569; }
.rate { font-size: 28px; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.2; margin: 2px 0; }
.date { font-size: 13px; color: #334155; }
.next { font-size: 12px; color: #475569; margin-top: 2px; }
.source { margin-top: 6px; font-size: 11px; color: #475569; }
a { color: #4338ca; }
${themeStyles(theme)}
</style>
</head>
<body>
<main>
<h1 class="per">${escapeMarkup(t("perUnit", { name }))}</h1>
${rateLines}
${next ? `<p class="next">${escapeMarkup(t("next", next))}</p>\n` : ""}<p class="source">${t.markup("source", { bank: link(RATE_SOURCE.url) })}<br>${t.markup("terms", { terms: link(RATE_SOURCE_TERMS_URL) })}</p>
</main>
</body>
</html>
`;
}

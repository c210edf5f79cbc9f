"use client";

import { useTranslations } from "next-intl";
import { CurrencySelect } from "@/components/rates/selected-currency";
import { Panel } from "@/components/ui/panel";
import { EmbedSnippets } from "./embed-snippets";

/** The rate on another site: the badge and the card of the chosen currency, ready to copy. */
export function EmbedPanel() {
  const t = useTranslations("developers");
  return (
    <Panel title={t("embedTitle")} id="embed" actions={<CurrencySelect />}>
      <EmbedSnippets open />
    </Panel>
  );
}

"use client";

import { useLocale, useTranslations } from "next-intl";
import { useId, useRef, useState } from "react";
import { inputClass } from "@/components/ui/field";
import { foldForSearch, useCurrencyName, useCurrencySearchNames } from "./currency-names";

export interface CurrencyOption {
  code: string;
  name: string;
}

interface CurrencyComboboxProps {
  id: string;
  value: string;
  options: CurrencyOption[];
  onChange: (code: string) => void;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
  /** Which edge the open list lines up with: "end" where the field sits at the right of a panel's header. */
  align?: "start" | "end";
}

/** The currencies a Venezuelan shop prices in come first: the dollar, the euro, the bolívar; then by name. */
const FIRST_IN_PICKER = ["USD", "EUR", "VES"];
const pickerRank = (code: string) => {
  const rank = FIRST_IN_PICKER.indexOf(code);
  return rank === -1 ? FIRST_IN_PICKER.length : rank;
};

/**
 * A currency picker that can be typed into, as xe's is: the list shows each code with its whole name in the
 * page's language (no name cut off), typing filters by code or by name in either language, accents or not
 * ("dolar", "dollar", "peso", "mx"), arrows move, Enter picks, Escape backs out. The ARIA 1.2 combobox
 * pattern with a listbox popup; the field shows "USD · dólar estadounidense" when closed. USD, EUR and VES
 * first, the others by their name in the page's language.
 */
export function CurrencyCombobox({ id, value, options, onChange, align = "start", ...aria }: CurrencyComboboxProps) {
  const t = useTranslations("currencies");
  const nameOf = useCurrencyName();
  const locale = useLocale();
  const searchNames = useCurrencySearchNames();
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState<string>();
  const [active, setActive] = useState(0);
  const open = query !== undefined;
  const named = options
    .map((option) => ({ ...option, shown: nameOf(option.code, option.name) }))
    .sort((a, b) => pickerRank(a.code) - pickerRank(b.code) || a.shown.localeCompare(b.shown, locale));
  const selected = named.find((option) => option.code === value);
  const needle = foldForSearch((query ?? "").trim());
  const matches = needle
    ? named
        .filter((option) =>
          [option.code, option.shown, option.name, ...(searchNames[option.code] ?? [])].some((text) =>
            foldForSearch(text).includes(needle),
          ),
        )
        // A code that starts with what is typed comes first: "eu" finds EUR before a name containing "eu".
        .sort(
          (a, b) => Number(!a.code.toLowerCase().startsWith(needle)) - Number(!b.code.toLowerCase().startsWith(needle)),
        )
    : named;

  const close = () => setQuery(undefined);
  const pick = (option: CurrencyOption | undefined) => {
    if (option) onChange(option.code);
    close();
  };

  return (
    <div className="relative">
      <input
        {...aria}
        ref={input}
        id={id}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && matches[active] ? `${listId}-${matches[active].code}` : undefined}
        autoComplete="off"
        spellCheck={false}
        className={`${inputClass} pr-8`}
        value={open ? query : selected ? `${selected.code} · ${selected.shown}` : value}
        data-value={value}
        onFocus={(event) => event.target.select()}
        onClick={() => !open && setQuery("")}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onBlur={close}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            if (!open) {
              setQuery("");
              setActive(
                Math.max(
                  0,
                  options.findIndex((option) => option.code === value),
                ),
              );
              return;
            }
            const step = event.key === "ArrowDown" ? 1 : -1;
            setActive((index) => (matches.length === 0 ? 0 : (index + step + matches.length) % matches.length));
          } else if (event.key === "Enter" && open) {
            event.preventDefault();
            pick(matches[active]);
          } else if (event.key === "Escape" && open) {
            event.preventDefault();
            event.stopPropagation();
            close();
          }
        }}
      />
      <span
        aria-hidden
        className="pointer-events-none absolute top-1/2 right-3 -translate-y-1/2 text-xs text-slate-500"
      >
        ▾
      </span>
      {open && (
        <ul
          id={listId}
          // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the ARIA combobox pattern's list of options.
          role="listbox"
          aria-label={t("list")}
          className={`absolute z-20 mt-1 max-h-64 w-full min-w-56 ${align === "end" ? "right-0" : "left-0"} overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900`}
        >
          {matches.length === 0 && (
            <li className="px-3 py-2 text-slate-600 dark:text-slate-400">{t("noMatch", { query: query ?? "" })}</li>
          )}
          {matches.map((option, index) => (
            // biome-ignore lint/a11y/useFocusableInteractive: focus stays in the input, which names the active option.
            <li
              key={option.code}
              id={`${listId}-${option.code}`}
              // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the ARIA combobox pattern's options.
              role="option"
              aria-selected={option.code === value}
              className={`flex cursor-pointer gap-2 px-3 py-1.5 ${index === active ? "bg-indigo-50 dark:bg-indigo-950/60" : ""}`}
              // mousedown, not click: the input's blur would close the list before a click lands.
              onMouseDown={(event) => {
                event.preventDefault();
                pick(option);
              }}
              onMouseEnter={() => setActive(index)}
            >
              <span className="w-10 shrink-0 font-mono font-semibold">{option.code}</span>
              <span className="min-w-0">{option.shown}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

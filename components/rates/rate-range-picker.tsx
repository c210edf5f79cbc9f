"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { type Format, useFormat } from "@/components/ui/use-format";
import type { DateRange } from "@/lib/swr/use-rates";
import { RANGE_PRESETS, type RangePreset, type RangeProblem, type RangeSelection } from "./rate-range";

interface RateRangePickerProps {
  value: RangeSelection;
  onChange: (selection: RangeSelection) => void;
  /** What is wrong with the applied custom range; each message names its field and sits under the form. */
  problems: RangeProblem[];
  /** The range last shown, to prefill the custom inputs. */
  current?: DateRange;
  /** The latest date that can be asked for (today in Caracas). */
  today: string;
}

const segment =
  "flex-auto rounded px-1.5 py-1 text-sm font-medium whitespace-nowrap sm:flex-none text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 aria-pressed:bg-indigo-600 aria-pressed:text-white sm:px-2.5 dark:text-slate-200 dark:hover:bg-slate-800 dark:aria-pressed:bg-indigo-400 dark:aria-pressed:text-slate-950";

/** Preset range buttons and a custom from/to range, checked here before the API is asked. */
export function RateRangePicker({ value, onChange, problems, current, today }: RateRangePickerProps) {
  const t = useTranslations("range");
  const format = useFormat();
  const [customOpen, setCustomOpen] = useState(value.preset === "custom");
  const [start, setStart] = useState(value.preset === "custom" ? value.start : (current?.start_date ?? ""));
  const [end, setEnd] = useState(value.preset === "custom" ? value.end : (current?.end_date ?? ""));

  const pressed = (id: RangePreset | "custom") => (id === "custom" ? customOpen : !customOpen && value.preset === id);
  const problemOf = (field: RangeProblem["field"]) => problems.find((p) => p.field === field);

  return (
    <div className="flex w-full flex-col gap-2 sm:w-auto sm:items-end">
      {/* biome-ignore lint/a11y/useSemanticElements: a fieldset's own border, padding and min-width would fight this control's frame. */}
      <div
        role="group"
        aria-label={t("group")}
        className="flex w-full rounded-md border border-slate-300 p-0.5 sm:inline-flex sm:w-auto dark:border-slate-600"
      >
        {RANGE_PRESETS.map((preset) => (
          <button
            key={preset.id}
            type="button"
            aria-pressed={pressed(preset.id)}
            // The full name for a screen reader also on a phone, where "30 d" is shown (it begins the name).
            aria-label={t(`presets.${preset.id}`)}
            onClick={() => {
              setCustomOpen(false);
              onChange({ preset: preset.id });
            }}
            className={segment}
          >
            <span className="sm:hidden">{t(`short.${preset.id}`)}</span>
            <span className="hidden sm:inline">{t(`presets.${preset.id}`)}</span>
          </button>
        ))}
        <button
          type="button"
          aria-pressed={pressed("custom")}
          aria-expanded={customOpen}
          onClick={() => {
            setCustomOpen(true);
            if (!start && current) setStart(current.start_date);
            if (!end && current) setEnd(current.end_date);
          }}
          className={segment}
        >
          {t("custom")}
        </button>
      </div>
      {customOpen && (
        <form
          className="flex w-full flex-col gap-1 sm:w-auto sm:items-end"
          noValidate
          aria-label={t("customForm")}
          onSubmit={(event) => {
            event.preventDefault();
            onChange({ preset: "custom", start, end });
          }}
        >
          <div className="grid grid-cols-1 items-end gap-2 min-[380px]:grid-cols-2 sm:flex">
            <label className="flex min-w-0 flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
              {t("from")}
              <input
                type="date"
                required
                max={today}
                value={start}
                onChange={(e) => setStart(e.target.value)}
                aria-invalid={Boolean(problemOf("from"))}
                aria-describedby={problemOf("from") ? "range-from-problem" : undefined}
                className={`${inputClass} h-8 min-w-0 px-2 sm:w-40`}
              />
            </label>
            <label className="flex min-w-0 flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
              {t("to")}
              <input
                type="date"
                required
                max={today}
                value={end}
                onChange={(e) => setEnd(e.target.value)}
                aria-invalid={Boolean(problemOf("to"))}
                aria-describedby={problemOf("to") ? "range-to-problem" : undefined}
                className={`${inputClass} h-8 min-w-0 px-2 sm:w-40`}
              />
            </label>
            <Button type="submit" size="sm" variant="primary" className="min-[380px]:col-span-2">
              {t("apply")}
            </Button>
          </div>
          {problems.length > 0 && (
            <div role="alert" data-testid="range-problems">
              <ul className="flex flex-col gap-0.5 text-sm text-red-700 sm:max-w-md sm:text-right dark:text-red-300">
                {problems.map((problem) => (
                  <li key={problem.field} id={`range-${problem.field}-problem`}>
                    {wordRangeProblem(problem, t as unknown as Translate, format)}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </form>
      )}
    </div>
  );
}

type Translate = (key: string, values?: Record<string, string | number>) => string;

/** A problem of the custom range in the words of `t` (the range messages), its dates in the page's format. */
export function wordRangeProblem(problem: RangeProblem, t: Translate, format: Pick<Format, "day">): string {
  const field = t(problem.field);
  switch (problem.kind) {
    case "missing":
      return t("missing", { field });
    case "notDate":
      return t("notDate", { field, value: problem.value });
    case "future":
      return t("future", { field, date: format.day(problem.date), today: format.day(problem.today) });
    case "after":
      return t("after", { start: format.day(problem.start), end: format.day(problem.end) });
    case "tooLong":
      return t("tooLong", { days: problem.days, max: problem.max });
  }
}

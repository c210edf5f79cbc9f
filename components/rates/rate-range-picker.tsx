"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import type { DateRange } from "@/lib/swr/use-rates";
import { RANGE_PRESETS, type RangePreset } from "./rate-range";

export type RangeSelection = { preset: RangePreset } | { preset: "custom"; range: DateRange };

interface RateRangePickerProps {
  value: RangeSelection;
  onChange: (selection: RangeSelection) => void;
  /** The range the API actually used, to prefill the custom inputs. */
  current?: DateRange;
}

/** Preset range buttons and a custom from/to range; the API validates the dates and the panel shows why not. */
export function RateRangePicker({ value, onChange, current }: RateRangePickerProps) {
  const [customOpen, setCustomOpen] = useState(value.preset === "custom");
  const [start, setStart] = useState(current?.start_date ?? "");
  const [end, setEnd] = useState(current?.end_date ?? "");

  const pressed = (id: RangePreset | "custom") => (id === "custom" ? customOpen : !customOpen && value.preset === id);

  return (
    <div className="flex flex-col items-end gap-2">
      <div role="group" aria-label="History range" className="inline-flex rounded-md border border-slate-300 p-0.5 dark:border-slate-600">
        {RANGE_PRESETS.map((preset) => (
          <button
            key={preset.id}
            type="button"
            aria-pressed={pressed(preset.id)}
            onClick={() => {
              setCustomOpen(false);
              onChange({ preset: preset.id });
            }}
            className="rounded px-2.5 py-1 text-sm font-medium text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 aria-pressed:bg-indigo-600 aria-pressed:text-white dark:text-slate-200 dark:hover:bg-slate-800 dark:aria-pressed:bg-indigo-400 dark:aria-pressed:text-slate-950"
          >
            {preset.label}
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
          className="rounded px-2.5 py-1 text-sm font-medium text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 aria-pressed:bg-indigo-600 aria-pressed:text-white dark:text-slate-200 dark:hover:bg-slate-800 dark:aria-pressed:bg-indigo-400 dark:aria-pressed:text-slate-950"
        >
          Custom
        </button>
      </div>
      {customOpen && (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            onChange({ preset: "custom", range: { start_date: start, end_date: end } });
          }}
        >
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
            From
            <input type="date" required value={start} onChange={(e) => setStart(e.target.value)} className={`${inputClass} h-8 w-40`} />
          </label>
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
            To
            <input type="date" required value={end} onChange={(e) => setEnd(e.target.value)} className={`${inputClass} h-8 w-40`} />
          </label>
          <Button type="submit" size="sm" variant="primary">
            Apply
          </Button>
        </form>
      )}
    </div>
  );
}

"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from "recharts";
import type { NameType, ValueType } from "recharts/types/component/DefaultTooltipContent";
import { formatDay, formatRate } from "@/components/ui/format";
import type { Rate } from "@/lib/swr/types";

/** The rate history as a line, oldest to newest; hovering or focusing a point shows its date and value. */
export function RateChart({ rates }: { rates: Rate[] }) {
  // The API answers newest first; a time axis reads left to right.
  const data = [...rates].reverse();
  return (
    <figure className="h-72 w-full text-slate-600 dark:text-slate-400" aria-label={`Line chart of ${rates.length} rates`}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 8, right: 12, bottom: 0, left: 4 }} accessibilityLayer>
          <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
          <XAxis
            dataKey="date"
            tickFormatter={(date: string) => formatDay(date, "short")}
            tick={{ fill: "currentColor", fontSize: 12 }}
            stroke="currentColor"
            strokeOpacity={0.3}
            minTickGap={32}
          />
          <YAxis
            dataKey="dollar"
            domain={["auto", "auto"]}
            tickFormatter={(value: number) => formatRate(value)}
            tick={{ fill: "currentColor", fontSize: 12 }}
            stroke="currentColor"
            strokeOpacity={0.3}
            width={72}
          />
          <Tooltip content={RateTooltip} cursor={{ stroke: "currentColor", strokeOpacity: 0.3 }} />
          <Line
            type="monotone"
            dataKey="dollar"
            name="Bs per USD"
            className="stroke-indigo-600 dark:stroke-indigo-400"
            stroke="currentColor"
            strokeWidth={2}
            // Dots help on short ranges; on years of data they would only be noise.
            dot={data.length <= 45 ? { r: 3, className: "fill-indigo-600 dark:fill-indigo-400" } : false}
            activeDot={{ r: 5, className: "fill-indigo-600 dark:fill-indigo-400" }}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

function RateTooltip({ active, payload }: TooltipContentProps<ValueType, NameType>) {
  const point = payload?.[0]?.payload as Rate | undefined;
  if (!active || !point) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-sm shadow-md dark:border-slate-700 dark:bg-slate-900">
      <p className="text-slate-600 dark:text-slate-400">{formatDay(point.date)}</p>
      <p className="font-semibold text-slate-900 tabular-nums dark:text-slate-100">Bs {formatRate(point.dollar)}</p>
    </div>
  );
}

"use client";

import { useTranslations } from "next-intl";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceDot,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from "recharts";
import type { NameType, ValueType } from "recharts/types/component/DefaultTooltipContent";
import { numberFormat, withCurrency } from "@/components/ui/format";
import { useFormat } from "@/components/ui/use-format";
import { usePrefersDark } from "@/components/ui/use-prefers-dark";
import type { Rate } from "@/lib/swr/types";
import { chartPoints, markedPoints, type Point } from "./chart-points";
import { GAP_DAYS } from "./gaps";
import { useSelectedCurrency } from "./selected-currency";
import { dayToMs, formatTick, tickStyleFor, timeTicks } from "./time-axis";

// Tailwind's indigo-600/400, slate-600/400 and slate-200/800: AA contrast on the panel in each scheme.
const palettes = {
  light: { line: "#4f46e5", text: "#475569", grid: "#e2e8f0" },
  dark: { line: "#818cf8", text: "#94a3b8", grid: "#1e293b" },
};

/**
 * The rate history as a line over a true time axis from `start` to `end` (YYYY-MM-DD): gaps between stored
 * dates are as wide as the days they span. Hovering or focusing a point shows its date and value.
 */
export function RateChart({ rates, start, end }: { rates: Rate[]; start: string; end: string }) {
  // The API answers newest first; a time axis reads left to right.
  const data = chartPoints(rates);
  const gaps = data.length - rates.length;
  const startMs = dayToMs(start);
  const endMs = Math.max(dayToMs(end), startMs + 86_400_000);
  const style = tickStyleFor(startMs, endMs);
  const colors = palettes[usePrefersDark() ? "dark" : "light"];
  const currency = useSelectedCurrency();
  const t = useTranslations("chart");
  const format = useFormat();
  const axisRate = numberFormat(format.locale, { maximumFractionDigits: 2 });
  const label = t("label", { count: rates.length, start: format.day(start), end: format.day(end) });
  return (
    <figure
      className="h-72 w-full min-w-0"
      data-gaps={gaps}
      aria-label={gaps > 0 ? t("gaps", { label, gaps, days: GAP_DAYS }) : label}
    >
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }} accessibilityLayer>
          <CartesianGrid stroke={colors.grid} vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={[startMs, endMs]}
            ticks={timeTicks(startMs, endMs)}
            tickFormatter={(ms: number) => formatTick(ms, style, format.locale)}
            tick={{ fill: colors.text, fontSize: 12 }}
            stroke={colors.grid}
            interval="preserveStart"
            minTickGap={12}
            allowDataOverflow
            // Keeps the first and last dots clear of the axis lines.
            padding={{ left: 8, right: 8 }}
          />
          <YAxis
            dataKey="dollar"
            domain={["auto", "auto"]}
            tickFormatter={(value: number) => axisRate.format(value)}
            tick={{ fill: colors.text, fontSize: 12 }}
            stroke={colors.grid}
            width={56}
          />
          <Tooltip content={RateTooltip} cursor={{ stroke: colors.text, strokeOpacity: 0.4 }} />
          <Line
            type="linear"
            dataKey="dollar"
            name={t("series", { currency: currency.code })}
            stroke={colors.line}
            strokeWidth={2}
            // Dots help on short ranges; on years of data they would only be noise.
            // Not clipped at the plot's edge: the newest rate sits on it and was drawn cut in half.
            dot={rates.length <= 45 ? { r: 3, fill: colors.line, stroke: colors.line, clipDot: false } : false}
            activeDot={{ r: 5, fill: colors.line, stroke: colors.line }}
            isAnimationActive={false}
            // A gap's null point ends the line: no trend is drawn across missing months.
            connectNulls={false}
          />
          {/* The newest rate, and a rate alone between gaps (no line reaches it), always have a dot. */}
          {markedPoints(data).map((point) => (
            <ReferenceDot
              key={point.date}
              x={point.t}
              y={point.dollar!}
              r={3.5}
              fill={colors.line}
              stroke={colors.line}
              ifOverflow="visible"
              data-testid="marked-point"
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

function RateTooltip({ active, payload }: TooltipContentProps<ValueType, NameType>) {
  const format = useFormat();
  const point = payload?.[0]?.payload as Point | undefined;
  if (!active || !point || point.dollar === null) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-sm shadow-md dark:border-slate-700 dark:bg-slate-900">
      <p className="text-slate-600 dark:text-slate-400">{format.day(point.date)}</p>
      <p className="font-semibold text-slate-900 tabular-nums dark:text-slate-100">
        {withCurrency(format.rate(point.dollar), "VES")}
      </p>
    </div>
  );
}

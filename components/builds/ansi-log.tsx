import Anser, { type AnserJsonEntry } from "anser";
import { memo, useMemo } from "react";

/** Colours of the 256-colour palette (index 16 and up), resolved by anser itself once each. */
const paletteColors = new Map<string, string>();
function paletteColor(klass: string): string | undefined {
  if (!paletteColors.has(klass)) {
    const index = klass.slice("ansi-palette-".length);
    const [entry] = Anser.ansiToJson(`\u001b[38;5;${index}mx`, { json: true, remove_empty: true });
    paletteColors.set(klass, entry?.fg ?? "");
  }
  return paletteColors.get(klass) || undefined;
}

function colorOf(klass: string, truecolor: string): { className?: string; color?: string } {
  if (!klass) return {};
  if (klass === "ansi-truecolor") return { color: `rgb(${truecolor})` };
  if (klass.startsWith("ansi-palette-")) {
    const rgb = paletteColor(klass);
    return rgb ? { color: `rgb(${rgb})` } : {};
  }
  return { className: klass };
}

function Segment({ entry }: { entry: AnserJsonEntry }) {
  const fg = colorOf(entry.fg, entry.fg_truecolor);
  const bg = colorOf(entry.bg, entry.bg_truecolor);
  const classes = [
    fg.className && `${fg.className}-fg`,
    bg.className && `${bg.className}-bg`,
    entry.decorations.includes("bold") && "font-bold",
    entry.decorations.includes("dim") && "opacity-70",
    entry.decorations.includes("italic") && "italic",
    entry.decorations.includes("underline") && "underline",
    entry.decorations.includes("strikethrough") && "line-through",
  ]
    .filter(Boolean)
    .join(" ");
  if (!classes && !fg.color && !bg.color) return <>{entry.content}</>;
  return (
    <span
      className={classes || undefined}
      style={fg.color || bg.color ? { color: fg.color, backgroundColor: bg.color } : undefined}
    >
      {entry.content}
    </span>
  );
}

/** The parsed segments split at newlines: one array of segments per line, colours carried across lines. */
function splitLines(entries: AnserJsonEntry[]): AnserJsonEntry[][] {
  const lines: AnserJsonEntry[][] = [[]];
  for (const entry of entries) {
    const parts = entry.content.split("\n");
    parts.forEach((part, index) => {
      if (index > 0) lines.push([]);
      if (part) lines[lines.length - 1].push({ ...entry, content: part });
    });
  }
  // A log ends with a newline: no empty numbered line after it.
  if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();
  return lines;
}

/** The text of a line without its colour codes, for searching. */
const plainText = (line: AnserJsonEntry[]) => line.map((entry) => entry.content).join("");

export interface LogLines {
  lines: AnserJsonEntry[][];
  texts: string[];
}

export function useLogLines(text: string): LogLines {
  return useMemo(() => {
    const lines = splitLines(Anser.ansiToJson(text, { json: true, use_classes: true, remove_empty: true }));
    return { lines, texts: lines.map(plainText) };
  }, [text]);
}

/**
 * Log text with its ANSI colours, one numbered row per line. Lines wrap at spaces (a word or a number is
 * broken only when it alone is wider than the log); the numbers are not selectable, so a copied passage is
 * the log's own text. anser parses the escape codes into segments; each segment's text is rendered as a
 * React text node, so whatever else the log holds (HTML, scripts) is shown, never interpreted. `matches`
 * marks the lines a search found; `current` is the one to show.
 */
export const AnsiLog = memo(function AnsiLog({
  log,
  firstLineNumber = 1,
  matches,
  current,
}: {
  log: LogLines;
  firstLineNumber?: number;
  matches?: Set<number>;
  current?: number;
}) {
  return (
    <ol className="m-0 list-none p-0" data-testid="log-lines">
      {log.lines.map((line, index) => (
        <li
          // biome-ignore lint/suspicious/noArrayIndexKey: a log only grows at its end; a line's place is its identity.
          key={index}
          data-line={index}
          className={`flex min-w-0 ${index === current ? "bg-amber-400/30" : matches?.has(index) ? "bg-amber-400/15" : ""}`}
        >
          <span aria-hidden className="w-12 shrink-0 pr-3 text-right text-slate-500 select-none">
            {firstLineNumber + index}
          </span>
          <span className="min-w-0 flex-1 break-words whitespace-pre-wrap" data-testid="log-line">
            {line.map((entry, part) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a line's segments never move within it.
              <Segment key={part} entry={entry} />
            ))}
          </span>
        </li>
      ))}
    </ol>
  );
});

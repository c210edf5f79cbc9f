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
    <span className={classes || undefined} style={fg.color || bg.color ? { color: fg.color, backgroundColor: bg.color } : undefined}>
      {entry.content}
    </span>
  );
}

/**
 * Log text with its ANSI colours. anser parses the escape codes into segments; each segment's text is
 * rendered as a React text node, so whatever else the log holds (HTML, scripts) is shown, never interpreted.
 */
export const AnsiLog = memo(function AnsiLog({ text }: { text: string }) {
  const entries = useMemo(() => Anser.ansiToJson(text, { json: true, use_classes: true, remove_empty: true }), [text]);
  return (
    <>
      {entries.map((entry, index) => (
        <Segment key={index} entry={entry} />
      ))}
    </>
  );
});

import fs from "node:fs";

/**
 * The browser the specs launch: CHROMIUM_PATH; else Debian's headless shell (package chromium-headless-shell), the
 * build of Chromium that Playwright itself runs headless tests in, which costs less than the full browser's
 * headless mode; else Debian's Chromium; else, with neither installed, Playwright's own.
 */
export const chromiumExecutable =
  process.env.CHROMIUM_PATH ??
  ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((file) => fs.existsSync(file));

/** Without the networking flags Chromium keeps trying to reach Google's services, which this machine cannot. */
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

import type { Config } from "tailwindcss";

// Loaded from app/globals.css with @config (Tailwind 4 reads its configuration from CSS).
const config: Config = {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
  darkMode: "media",
  theme: { extend: {} },
};

export default config;

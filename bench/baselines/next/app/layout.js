/** Next.js requires a root layout for its own 404 page; the baseline serves no page of its own. */
export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}

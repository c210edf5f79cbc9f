/** @type {import('next').NextConfig} */
const nextConfig = {
  // Serve /rates and /rates/ alike: API clients POST to the trailing-slash form and must not get a 308.
  skipTrailingSlashRedirect: true,
  // Native and server-only packages stay out of the bundle and load from node_modules at run time.
  serverExternalPackages: ["next-swagger-doc", "swagger-jsdoc", "better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/client", "prisma"],
  poweredByHeader: false,
};

export default nextConfig;

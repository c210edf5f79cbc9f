/**
 * The framework's floor for `npm run bench`: a bare Next.js app, nothing of the product in it, built and started
 * by the bench (bench/support/servers.ts) as the product is, `next build` then `next start`.
 */
export default { poweredByHeader: false, skipTrailingSlashRedirect: true };

/**
 * Called after every committed write of rates that bypasses POST /rates/ (workbook imports), so that nothing
 * keeps serving what was read before the write.
 *
 * MERGE NOTE: the rate reads cache (lib/rates/read-cache.ts, issue 9) exports invalidateRateReads(); once it
 * is in main this calls it. Until then no read is cached, so there is nothing to forget.
 */
export function afterRatesWritten(): void {}

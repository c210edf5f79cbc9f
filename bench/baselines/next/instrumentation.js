/** Nothing starts with the baseline: without this file Next.js would take the product's, from the folder above. */
export function register() {}

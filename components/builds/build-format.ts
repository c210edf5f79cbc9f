import type { BuildRepository } from "@/lib/swr/types";

export const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : "—");

/** Build ids are long; the first characters are enough to tell builds apart on screen. */
export const shortId = (id: string) => (id.length > 10 ? id.slice(0, 8) : id);

export const repositoryLabel = (repo: BuildRepository) => `${repo.repository}@${repo.ref}`;

/**
 * The code of a Prisma "known request error" (P2002: a unique value taken, P2025: no such record), from either
 * generated client. The SQLite client (@prisma/client) and the PostgreSQL one (.prisma/postgresql, lib/db/index.ts)
 * each define their own error classes, so `instanceof Prisma.PrismaClientKnownRequestError` is false for every
 * error of the PostgreSQL client (a registration with a taken email would answer 500, not 409). Both name the
 * class the same and carry the code. Part of the one error model (problem.ts answers P2002 as 409, P2025 as 404):
 * it reads only the error's shape, so the request plumbing needs nothing of the data layer for it.
 */
export function prismaErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== "PrismaClientKnownRequestError") return undefined;
  const { code } = error as Error & { code?: unknown };
  return typeof code === "string" ? code : undefined;
}

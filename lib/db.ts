import { recoveringSqliteAdapter } from "./sqlite-adapter";
import { PrismaClient } from "@prisma/client";
import { databaseFilePath } from "./database-url";
import { secureDataFolderBeforeOpening } from "./data-folder";
import { getEnv } from "./env";

// One client per process. Next's dev server reloads modules, so the client is kept on globalThis there.
const globalForPrisma = globalThis as unknown as { prisma?: PrismaClient };

export function getDb(): PrismaClient {
  if (!globalForPrisma.prisma) {
    secureDataFolderBeforeOpening(databaseFilePath(getEnv().DATABASE_URL));
    const adapter = recoveringSqliteAdapter(getEnv().DATABASE_URL);
    globalForPrisma.prisma = new PrismaClient({ adapter });
  }
  return globalForPrisma.prisma;
}

-- Display names tell users apart (issue 20, item 13); the PostgreSQL twin of SQLite's migration (strpos for
-- instr): an empty name becomes the email's local part, and a name that is one of the service's, or another
-- earlier user's in any letter case, gets its user id appended ("ana-7").
UPDATE "User" SET "displayName" = substr("email", 1, strpos("email", '@') - 1) WHERE "displayName" = '';
UPDATE "User" SET "displayName" = "displayName" || '-' || "id"
WHERE lower(trim("displayName")) IN ('build service', 'service', 'admin', 'administrator', 'root', 'system', 'runbot', 'bcv', 'webhook', 'poll', 'anonymous')
   OR EXISTS (
     SELECT 1 FROM "User" AS "earlier"
     WHERE lower("earlier"."displayName") = lower("User"."displayName") AND "earlier"."id" < "User"."id"
   );

-- When a build last reached running, woke or was extended: max_awake_builds puts the oldest to sleep first (issue 21).
ALTER TABLE "Build" ADD COLUMN "awakeSince" TIMESTAMP(3);

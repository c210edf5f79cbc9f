-- Webhook subscriptions to new value dates and their deliveries (lib/rates/webhooks).
-- CreateTable
CREATE TABLE "RateWebhook" (
    "id" TEXT NOT NULL,
    "userId" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "currencies" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "notifiedThrough" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RateWebhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RateWebhookDelivery" (
    "id" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "valueDate" TEXT,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "lastAttemptAt" TIMESTAMP(3),
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RateWebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RateWebhook_userId_idx" ON "RateWebhook"("userId");

-- CreateIndex
CREATE INDEX "RateWebhookDelivery_status_nextAttemptAt_idx" ON "RateWebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "RateWebhookDelivery_webhookId_createdAt_idx" ON "RateWebhookDelivery"("webhookId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "RateWebhookDelivery_webhookId_valueDate_key" ON "RateWebhookDelivery"("webhookId", "valueDate");

-- AddForeignKey
ALTER TABLE "RateWebhookDelivery" ADD CONSTRAINT "RateWebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "RateWebhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;


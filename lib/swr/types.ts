/**
 * The JSON shapes the dashboard reads: types only, inferred from the same zod schemas that describe the API's
 * responses (and its OpenAPI document), so the dashboard and the server cannot drift apart.
 */

import type { z } from "zod";
import type {
  appConfigSchema,
  buildListSchema,
  buildLogSchema,
  buildRepositorySchema,
  buildSchema,
  buildStageSchema,
  buildSummarySchema,
} from "../builds/schemas";
import type { BuildStatus } from "../builds/status";
import type { RateHistoryView, RateView, StoredRateView } from "../rates/schemas";

export { BUILD_STATUSES, type BuildStatus, type StageName, type StageStatus } from "../builds/status";

export type Rate = RateView;
export type StoredRate = StoredRateView;
export type RateHistory = RateHistoryView;

export type BuildRepository = z.output<typeof buildRepositorySchema>;
export type Stage = z.output<typeof buildStageSchema>;
export type BuildSummary = z.output<typeof buildSummarySchema>;
export type Build = z.output<typeof buildSchema>;
export type BuildList = z.output<typeof buildListSchema>;
export type AppConfig = z.output<typeof appConfigSchema>;
export type AppConfigRepository = AppConfig["repositories"][number];
export type StageLogPage = z.output<typeof buildLogSchema>;

/** Statuses during which a build is still moving on its own: the dashboard polls while any build is in one. */
export const IN_PROGRESS_STATUSES: readonly BuildStatus[] = [
  "queued",
  "checking_out",
  "installing",
  "testing",
  "starting",
  "destroying",
];

/** An RFC 9457 problem body, as every error of the API answers. */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}

// Currencies, conversion and workbook imports.
export type CurrencyList = import("../rates/schemas").CurrencyListView;
export type Currency = CurrencyList["currencies"][number];
export type Conversion = import("../rates/schemas").ConversionView;
export type RateStatus = import("../rates/schemas").RateStatusView;
export type ImportSummary = import("../rates/schemas").ImportSummary;

// The signed-in user (GET /users/me): the dashboard shows admin-only actions (workbook import) by its role.
export type Me = import("../users/schemas").UserView;

// The signed-in user's rate webhooks and their deliveries.
export type RateWebhook = import("../rates/webhooks/schemas").WebhookView;
export type CreatedRateWebhook = import("../rates/webhooks/schemas").CreatedWebhookView;
export type RateWebhookDelivery = import("../rates/webhooks/schemas").DeliveryView;

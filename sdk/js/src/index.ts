// @rampway/sdk: the merchant's side of rampway in TypeScript. No runtime dependencies:
// Node 18+'s fetch and crypto.

export { Rampway, MintApi, NftRampApi, DepositApi, OrderIterator, type RampwayOptions } from "./client.js";
export { RampwayError, type RampwayErrorInit } from "./errors.js";
export { VERSION, type RequestOptions, type RetryInfo, type TransportOptions } from "./http.js";
export {
  verifyWebhook,
  signWebhook,
  WebhookVerificationError,
  SIGNATURE_HEADER,
  DEFAULT_TOLERANCE,
  EventNames,
  type EventName,
  type OrderContext,
  type RawBody,
  type VerifyOptions,
  type WebhookErrorCode,
  type WebhookEvent,
} from "./webhook.js";
export { MemoryDeduper, DEFAULT_DEDUPE_TTL, type Deduper } from "./dedupe.js";
export {
  webhookHandler,
  MAX_BODY_BYTES,
  type WebhookHandlerOptions,
  type WebhookRequest,
  type WebhookResponse,
} from "./handler.js";
export type * from "./types.js";

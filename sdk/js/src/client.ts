import { Transport, type RequestOptions, type TransportOptions } from "./http.js";
import type {
  CryptoQuote,
  CryptoQuoteRequest,
  Delivery,
  DeliveryLog,
  DepositOrder,
  DepositOrderRequest,
  FiatCurrencies,
  FiatOrder,
  FiatOrderRequest,
  FiatQuote,
  FiatQuoteRequest,
  ListOrdersParams,
  MintOrder,
  MintOrderRequest,
  Order,
  OrderList,
  Refund,
  RefundAddressRequest,
  RefundList,
  RefundRequest,
} from "./types.js";

/** How to reach a rampway server and call it as one merchant. */
export interface RampwayOptions extends TransportOptions {
  /** The merchant API key (rw_live_… or rw_test_…), sent as X-API-KEY. */
  apiKey: string;
  /**
   * The merchant's id (mch_…). Bodies that leave merchant_id out get this one; the server
   * refuses (401) a merchant_id that is not the key's merchant.
   */
  merchantId?: string;
  /**
   * The server's root URL (e.g. https://pay.example.com); the areas are under its default base
   * paths /mint, /nft-ramp and /deposit. Set the area URLs below instead when a deployment
   * moves them (rampway dev's dev.json lists all three under "api").
   */
  baseUrl?: string;
  /** Area A's base URL ({mint_base_url}), e.g. https://pay.example.com/mint. */
  mintBaseUrl?: string;
  /** Area B's base URL ({nft_ramp_base_url}). */
  nftRampBaseUrl?: string;
  /** Area C's base URL ({deposit_base_url}). */
  depositBaseUrl?: string;
}

const NFT_CHECKOUT = "/merchant/hosted/nftCheckout";
const ON_RAMP = "/merchant/sdk/on-ramp";

/**
 * A client of rampway's merchant API. Each area is a property: {@link Rampway.mint} (A:
 * NFT minting paid in crypto), {@link Rampway.nftRamp} (B: NFT checkout paid in fiat) and
 * {@link Rampway.deposit} (C: on-ramp to the merchant's deposit address).
 *
 * Every call is retried on network errors, timeouts, 409 with Retry-After, 429 (after its Retry-After) and
 * 5xx, with exponential backoff and full jitter; every POST carries an Idempotency-Key made
 * for the call and reused by its retries. Failures throw {@link RampwayError}.
 */
export class Rampway {
  readonly mint: MintApi;
  readonly nftRamp: NftRampApi;
  readonly deposit: DepositApi;

  constructor(options: RampwayOptions) {
    const root = options.baseUrl?.replace(/\/+$/, "");
    const base = (given: string | undefined, prefix: string, name: string): string => {
      const b = given ?? (root === undefined ? undefined : root + prefix);
      if (b === undefined) {
        throw new TypeError(`rampway: give baseUrl or ${name}`);
      }
      return b.replace(/\/+$/, "");
    };
    const ctx: Ctx = { t: new Transport(options), merchantId: options.merchantId };
    this.mint = new MintApi(ctx, base(options.mintBaseUrl, "/mint", "mintBaseUrl"));
    this.nftRamp = new NftRampApi(ctx, base(options.nftRampBaseUrl, "/nft-ramp", "nftRampBaseUrl"));
    this.deposit = new DepositApi(ctx, base(options.depositBaseUrl, "/deposit", "depositBaseUrl"));
  }
}

interface Ctx {
  t: Transport;
  merchantId: string | undefined;
}

/** What the areas have in common: their order lookups, lists, webhook logs and refunds. */
abstract class AreaApi {
  readonly #ctx: Ctx;
  /** The area's base URL. */
  readonly baseUrl: string;
  /** The area's order path: …/order, whose lookups are …/order/{order_id}. */
  readonly #orderPath: string;
  readonly #listPath: string;

  constructor(ctx: Ctx, baseUrl: string, orderPath: string, listPath: string) {
    this.#ctx = ctx;
    this.baseUrl = baseUrl;
    this.#orderPath = orderPath;
    this.#listPath = listPath;
  }

  protected get<T>(path: string, opts?: RequestOptions, query?: Record<string, string | number | undefined>): Promise<T> {
    const r = query === undefined ? { method: "GET" as const, base: this.baseUrl, path } : { method: "GET" as const, base: this.baseUrl, path, query };
    return this.#ctx.t.request<T>(r, opts);
  }

  protected post<T>(path: string, body: object, opts?: RequestOptions): Promise<T> {
    return this.#ctx.t.request<T>({ method: "POST", base: this.baseUrl, path, body: this.withMerchant(body) }, opts);
  }

  /** body with the client's merchant_id when it has none. */
  protected withMerchant<B extends object>(body: B): B {
    const m = this.#ctx.merchantId;
    if (m === undefined || ("merchant_id" in body && (body as { merchant_id?: unknown }).merchant_id !== undefined)) {
      return body;
    }
    return { ...body, merchant_id: m };
  }

  protected orderUrl(orderId: string): string {
    return `${this.#orderPath}/${seg(orderId, "orderId")}`;
  }

  /** Looks one of the merchant's orders of this area up: 404 for any other. */
  async getOrder(orderId: string, opts?: RequestOptions): Promise<Order> {
    return this.get<Order>(this.orderUrl(orderId), opts);
  }

  /** One page of the area's orders, newest first. */
  listOrdersPage(params: ListOrdersParams = {}, opts?: RequestOptions): Promise<OrderList> {
    return this.get<OrderList>(this.#listPath, opts, listQuery(params));
  }

  /**
   * The area's orders, newest first, as an async iterator that fetches page after page
   * (cursor pagination with starting_after) while it is read:
   * `for await (const o of rw.mint.listOrders({ status: "SUCCESS" })) { … }`.
   */
  listOrders(params: ListOrdersParams = {}, opts?: RequestOptions): OrderIterator {
    return new OrderIterator((p) => this.listOrdersPage(p, opts), { limit: 100, ...params });
  }

  /** The order's webhook log: each event's delivery with its attempts, in event order. */
  async listWebhooks(orderId: string, opts?: RequestOptions): Promise<DeliveryLog> {
    return this.get<DeliveryLog>(`${this.orderUrl(orderId)}/webhooks`, opts);
  }

  /** Queues an event of the order again, due now, with the same eventId and body (202). */
  async resendWebhook(orderId: string, eventId: string, opts?: RequestOptions): Promise<Delivery> {
    return this.post<Delivery>(`${this.orderUrl(orderId)}/webhooks/${seg(eventId, "eventId")}/resend`, {}, opts);
  }

  /**
   * Refunds one of the merchant's SUCCESS orders of this area, in part (req.amount, a decimal
   * string in the currency the order was paid in: the crypto asset for area A, the fiat currency
   * for B and C) or whatever is left (no amount). Area A takes the address it goes to
   * (req.address); B and C refund the payment itself and refuse an address (400). Answers the
   * refund as recorded; its webhook events follow (order.refund.pending, then
   * order.refund.succeeded or order.refund.failed).
   *
   * Errors: 404 for an order that is not the merchant's (or of this area, or of the key's mode);
   * 409 for an order that is not SUCCESS or has nothing left to refund; 400 naming the field for
   * an amount over what is left (or over the merchant's daily cap), a refused address, or a
   * reason over 500 characters. Like every POST it carries an Idempotency-Key, the same on each
   * retry: a retried call makes one refund. Pass opts.idempotencyKey to keep it across your own
   * retries too.
   */
  async createRefund(orderId: string, req: RefundRequest = {}, opts?: RequestOptions): Promise<Refund> {
    return this.post<Refund>(`${this.orderUrl(orderId)}/refunds`, req, opts);
  }

  /**
   * The order's refunds, automatic and merchant ones, oldest first, with what the order was
   * paid, what is refunded and what is left to refund.
   */
  async listRefunds(orderId: string, opts?: RequestOptions): Promise<RefundList> {
    return this.get<RefundList>(`${this.orderUrl(orderId)}/refunds`, opts);
  }
}

/** Area A: NFT minting paid in crypto ({mint_base_url}). */
export class MintApi extends AreaApi {
  constructor(ctx: Ctx, baseUrl: string) {
    super(ctx, baseUrl, `${NFT_CHECKOUT}/order`, `${NFT_CHECKOUT}/orders`);
  }

  /** A1: creates an order paid in crypto (201); send the user to its gateway_url. */
  createOrder(req: MintOrderRequest, opts?: RequestOptions): Promise<MintOrder> {
    return this.post<MintOrder>(`${NFT_CHECKOUT}/order`, req, opts);
  }

  /** A2: quotes the crypto amount of an order (200, also when allowed is false). */
  cryptoQuote(req: CryptoQuoteRequest, opts?: RequestOptions): Promise<CryptoQuote> {
    return this.post<CryptoQuote>(`${NFT_CHECKOUT}/cryptoQuote`, req, opts);
  }

  /**
   * Gives a refund of one of the merchant's area A orders the address it is sent to, when it
   * waits for one (awaiting_address) or failed. 409 when it does not wait for an address.
   */
  async setRefundAddress(orderId: string, refundId: string, req: RefundAddressRequest | string, opts?: RequestOptions): Promise<Refund> {
    const body = typeof req === "string" ? { address: req } : req;
    return this.post<Refund>(`${this.orderUrl(orderId)}/refunds/${seg(refundId, "refundId")}/address`, body, opts);
  }
}

/** Area B: NFT checkout paid in fiat ({nft_ramp_base_url}). */
export class NftRampApi extends AreaApi {
  constructor(ctx: Ctx, baseUrl: string) {
    super(ctx, baseUrl, `${NFT_CHECKOUT}/order`, `${NFT_CHECKOUT}/orders`);
  }

  /** B1: creates an order paid in fiat (201). */
  createOrder(req: FiatOrderRequest, opts?: RequestOptions): Promise<FiatOrder> {
    return this.post<FiatOrder>(`${NFT_CHECKOUT}/order`, req, opts);
  }

  /** B2: the fiat currencies with their payment methods and limits. */
  fiatCurrencies(opts?: RequestOptions): Promise<FiatCurrencies> {
    return this.get<FiatCurrencies>(`${NFT_CHECKOUT}/fiatCurrencies`, opts);
  }

  /** B3: quotes the fiat amount of an order (200, also when allowed is false). */
  fiatQuote(req: FiatQuoteRequest, opts?: RequestOptions): Promise<FiatQuote> {
    return this.post<FiatQuote>(`${NFT_CHECKOUT}/fiatQuote`, req, opts);
  }
}

/** Area C: on-ramp to the merchant's deposit address ({deposit_base_url}). */
export class DepositApi extends AreaApi {
  constructor(ctx: Ctx, baseUrl: string) {
    super(ctx, baseUrl, `${ON_RAMP}/order`, `${ON_RAMP}/orders`);
  }

  /** C1: creates an on-ramp order to the merchant's deposit address (201). */
  createOrder(req: DepositOrderRequest, opts?: RequestOptions): Promise<DepositOrder> {
    return this.post<DepositOrder>(`${ON_RAMP}/order`, req, opts);
  }

  /** C2: the fiat currencies with the payment methods supported for on-ramping. */
  fiatCurrencies(opts?: RequestOptions): Promise<FiatCurrencies> {
    return this.get<FiatCurrencies>("/merchant/sdk/onramp-to-deposit/fiatCurrencies", opts);
  }
}

/**
 * The orders of a list, fetched a page at a time as they are read. Iterate it with
 * `for await`; each iteration starts again from the first page.
 */
export class OrderIterator implements AsyncIterable<Order> {
  readonly #fetchPage: (p: ListOrdersParams) => Promise<OrderList>;
  readonly #params: ListOrdersParams;

  constructor(fetchPage: (p: ListOrdersParams) => Promise<OrderList>, params: ListOrdersParams) {
    this.#fetchPage = fetchPage;
    this.#params = params;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Order> {
    let params = { ...this.#params };
    for (;;) {
      const page = await this.#fetchPage(params);
      for (const o of page.data) {
        yield o;
      }
      const last = page.data[page.data.length - 1];
      if (!page.has_more || last === undefined) {
        return;
      }
      params = { ...params, starting_after: last.order_id };
    }
  }

  /** Reads the orders into an array, at most max of them. */
  async toArray(max = Infinity): Promise<Order[]> {
    const out: Order[] = [];
    if (max <= 0) {
      return out;
    }
    for await (const o of this) {
      out.push(o);
      if (out.length >= max) {
        break;
      }
    }
    return out;
  }
}

function listQuery(p: ListOrdersParams): Record<string, string | number | undefined> {
  const time = (v: string | Date | undefined) => (v instanceof Date ? v.toISOString() : v);
  return {
    status: p.status,
    created_from: time(p.created_from),
    created_to: time(p.created_to),
    limit: p.limit,
    starting_after: p.starting_after,
  };
}

/** An id as one path segment; an empty one would name another route. */
function seg(v: string, name: string): string {
  if (typeof v !== "string" || v === "") {
    throw new TypeError(`rampway: ${name} must be a non-empty string`);
  }
  return encodeURIComponent(v);
}

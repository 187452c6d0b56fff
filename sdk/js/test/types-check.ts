// Compiled (not run) by `npm test` against the built package's declarations: the public API
// is typed as the README shows it, amounts are strings, and mistakes do not compile.

import {
  Rampway,
  RampwayError,
  verifyWebhook,
  webhookHandler,
  MemoryDeduper,
  EventNames,
  type FiatQuote,
  type MintOrder,
  type Order,
  type OrderStatus,
  type Refund,
  type RefundList,
  type WebhookEvent,
} from "../dist/index.js";

export async function usage(): Promise<void> {
  const rw = new Rampway({ apiKey: "rw_test_x", merchantId: "mch_x", baseUrl: "http://127.0.0.1:8080" });
  const contractExecution = {
    smartContractFunctionId: "scf_x",
    function_args: { to: "0x0000000000000000000000000000000000000001", quantity: "1" },
    payment: { payableCryptoSymbol: "ETH", payableCryptoContractAddress: "", totalValue: "0.01" },
    network_params: { networkName: "devnet" },
  };
  const o: MintOrder = await rw.mint.createOrder(
    { crypto_symbol: "ETH", crypto_network: "devnet", contractExecution, merchant_user_id: "u", merchant_redirect_url: "https://x" },
    { idempotencyKey: "k", timeout: 1000, maxRetries: 1 },
  );
  const amount: string = o.crypto_amount;
  const live: boolean = o.livemode;
  const q: FiatQuote = await rw.nftRamp.fiatQuote({ order_fiat_symbol: "EUR", fiat_payment_method: "credit_debit_card", contractExecution });
  const allowed: boolean = q.allowed;
  const c = await rw.deposit.createOrder({
    order_fiat_symbol: "EUR",
    order_fiat_amount: "100.00",
    convert_to_crypto_symbol: "ETH",
    convert_to_crypto_network: "devnet",
    merchant_user_id: "u",
    merchant_redirect_url: "https://x",
  });
  const status: OrderStatus = (await rw.deposit.getOrder(c.order_id)).status;
  const depositLive: boolean = c.livemode;
  for await (const x of rw.mint.listOrders({ status: "SUCCESS" })) {
    const y: Order = x;
    const yLive: boolean = y.livemode;
    void [y, yLive];
  }
  const log = await rw.nftRamp.listWebhooks(c.order_id);
  await rw.nftRamp.resendWebhook(c.order_id, log.data[0]!.event_id);
  await rw.mint.setRefundAddress(o.order_id, "rfd_x", "0x0000000000000000000000000000000000000001");
  const refund: Refund = await rw.nftRamp.createRefund(c.order_id, { amount: "12.50", reason: "one item returned" }, { idempotencyKey: "r-1" });
  const origin: "merchant" | "automatic" = refund.origin;
  const refundCurrency: string = refund.currency;
  await rw.mint.createRefund(o.order_id, { address: "0x0000000000000000000000000000000000000001" });
  await rw.deposit.createRefund(c.order_id);
  const refunds: RefundList = await rw.deposit.listRefunds(c.order_id);
  const left: string = refunds.amount_refundable;
  const firstRefund: Refund | undefined = refunds.data[0];
  const refunded: string = (await rw.mint.getOrder(o.order_id)).refunded_amount;
  try {
    await rw.mint.getOrder("ord_x");
  } catch (e) {
    if (e instanceof RampwayError) {
      const s: number = e.status;
      const p: string = e.path;
      const r: boolean = e.retryable;
      void [s, p, r];
    }
  }
  const ev: WebhookEvent = verifyWebhook("whsec_x", "{}", "t=1,v1=00", { now: new Date(), tolerance: 300, seen: new MemoryDeduper() });
  const orderId: string = ev.context.order_id;
  const evLive: boolean = ev.context.livemode;
  webhookHandler({ secret: ["whsec_a", "whsec_b"], onEvent: async (e) => void e.context.status });
  if (ev.eventName === EventNames.OrderRefundSucceeded || ev.eventName === EventNames.OrderRefundFailed) {
    const r: Refund | undefined = ev.context.refund;
    const done: string | undefined = ev.context.refunded_amount;
    void [r, done];
  }
  const succeeded: "order.refund.succeeded" = EventNames.OrderRefundSucceeded;
  const failed: "order.refund.failed" = EventNames.OrderRefundFailed;

  // @ts-expect-error amounts are decimal strings, never numbers
  await rw.mint.cryptoQuote({ crypto_symbol: "ETH", crypto_network: "devnet", contractExecution: { ...contractExecution, payment: { payableCryptoSymbol: "ETH", totalValue: 0.01 } } });
  // @ts-expect-error a status that does not exist
  rw.mint.listOrders({ status: "PAID" });
  // @ts-expect-error B1 needs its payment method
  await rw.nftRamp.createOrder({ order_fiat_symbol: "EUR", contractExecution, merchant_user_id: "u", merchant_redirect_url: "https://x" });
  // @ts-expect-error refund amounts are decimal strings, never numbers
  await rw.mint.createRefund(o.order_id, { amount: 12.5 });
  // @ts-expect-error a field the refund body does not have
  await rw.nftRamp.createRefund(c.order_id, { amout: "1.00" });
  void [amount, live, allowed, status, orderId, evLive, depositLive, origin, refundCurrency, left, firstRefund, refunded, succeeded, failed];
}

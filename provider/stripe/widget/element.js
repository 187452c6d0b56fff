// Stripe's Payment Element: mounted with the intent's client secret and confirmed here, in the
// browser: card data goes to Stripe, never to rampway. Stripe sends the user back to the
// checkout page, which reads the payment's state.
(() => {
  const form = document.getElementById("stripe-form");
  if (!form) return;
  const error = document.getElementById("stripe-error");
  const show = (msg) => { error.textContent = msg; error.hidden = false; };
  if (!window.Stripe) { show("The payment form could not be loaded. Check your connection and reload the page."); return; }
  const stripe = window.Stripe(form.dataset.publishableKey);
  const elements = stripe.elements({ clientSecret: form.dataset.clientSecret });
  elements.create("payment").mount("#payment-element");
  const button = document.getElementById("stripe-pay");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    button.disabled = true;
    error.hidden = true;
    const { error: err } = await stripe.confirmPayment({ elements, confirmParams: { return_url: form.dataset.returnUrl } });
    if (err) { show(err.message || "The payment did not go through."); button.disabled = false; }
  });
})();

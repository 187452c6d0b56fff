package dashboard

// routeOrders registers the orders pages.
func (h *Handler) routeOrders() {}

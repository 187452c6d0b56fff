package dashboard

// routeRefunds registers the refunds pages.
func (h *Handler) routeRefunds() {}

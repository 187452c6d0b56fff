package dashboard

// routeUsers registers the users pages.
func (h *Handler) routeUsers() {}

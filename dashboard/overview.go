package dashboard

// routeOverview registers the overview pages.
func (h *Handler) routeOverview() {}

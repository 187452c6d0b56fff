package dashboard

// routeDevelopers registers the developers pages.
func (h *Handler) routeDevelopers() {}

package dashboard

// routeCatalogue registers the catalogue pages.
func (h *Handler) routeCatalogue() {}

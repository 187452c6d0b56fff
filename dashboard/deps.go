package dashboard

// Orders are the order reads of the orders pages (checkout.Records with the store's search).
type Orders interface{}

// Refunds are the refund use cases (checkout.Refunds).
type Refunds interface{}

// Stats are the overview's figures.
type Stats interface{}

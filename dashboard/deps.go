package dashboard

// Orders are the order reads of the orders pages (checkout.Records with the store's search).
type Orders interface{}


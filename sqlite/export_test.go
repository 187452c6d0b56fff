package sqlite

// CheckpointWhole and Checkpoint are checkpointWhole and checkpoint, for the tests.
var (
	CheckpointWhole = checkpointWhole
	Checkpoint      = checkpoint
)

// RecordStatements has f see every statement text prepared until the returned func is called.
func RecordStatements(f func(query string)) (stop func()) {
	onPrepare.Store(&f)
	return func() { onPrepare.Store(nil) }
}

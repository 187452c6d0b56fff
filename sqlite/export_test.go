package sqlite

// CheckpointWhole and Checkpoint are checkpointWhole and checkpoint, for the tests.
var (
	CheckpointWhole = checkpointWhole
	Checkpoint      = checkpoint
)

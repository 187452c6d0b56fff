//go:build race

package hd

// raceEnabled: under the race detector (~15x slower here) the long comparison with hdkeychain
// runs over fewer indexes.
const raceEnabled = true

//go:build !race

package contract

const raceEnabled = false

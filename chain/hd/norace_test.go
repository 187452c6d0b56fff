//go:build !race

package hd

const raceEnabled = false

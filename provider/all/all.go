// Package all imports every payment provider module of this build, for their registrations
// (provider.Register): the binary imports it; a build that wants fewer imports fewer.
package all

import (
	// The payment provider modules.
	_ "github.com/rampway/rampway/provider/sandbox"
	_ "github.com/rampway/rampway/provider/stripe"
)

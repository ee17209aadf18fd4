// Package startupfloor holds programs that link libraries and do nothing:
// bench/cli-startup.sh times them next to `shakectl version` to show how
// much of shakectl's start-up is the cost of merely linking (initialising)
// its dependencies on this machine, and how much is shakectl's own work.
//
//   - hello:    an empty Go program, the floor of the machine.
//   - required: the four libraries issue 2 requires (cobra, viper,
//     go-retryablehttp, fatih/color), nothing else.
//   - api:      what the API commands need: client, retry, output, cobra, viper.
//   - linked:   every package shakectl links (the cmd package), without
//     building a command or reading a configuration.
package startupfloor

// Command api links what shakectl's API commands need (client, retry,
// output, cobra, viper) and does nothing.
package main

import (
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"

	_ "github.com/shakenfist/shakectl/client"
	_ "github.com/shakenfist/shakectl/output"
	_ "github.com/shakenfist/shakectl/retry"
)

func main() {}

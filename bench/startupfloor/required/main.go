// Command required links the four libraries issue 2 requires and does nothing.
package main

import (
	_ "github.com/fatih/color"
	_ "github.com/hashicorp/go-retryablehttp"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
)

func main() {}

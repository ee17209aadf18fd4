package cmdutil

// The kernel builds the client and the output streams, so it alone knows
// which of its flags set the option fields their messages name as
// internal/fielderr placeholders ({Timeout}, {JQ}): libraryOptionName
// renders them in the error report (DescribeError) and wherever the
// kernel turns their errors into a usage error. Every placeholder in
// client's and output's sources has a name here (a test scans them).
var libraryFlags = map[string]string{
	// client.Options
	"Timeout":      "--request-timeout",
	"Retry":        "--retry-transient-capacity",
	"Retry.Budget": "--timeout",
	// NotReadyBudget is the command's deadline: --timeout, else the
	// --async mode's budget (Config.Deadline).
	"NotReadyBudget": "--timeout or --async block",
	// client.CreateInstanceRequest, which instance create fills.
	"CreateInstanceRequest.PlacedOn": "--placement",
	// output.TableOptions
	"JQ": "--jq",
}

// libraryOptionName is the flag for a client or output option field, ""
// for one the kernel does not know (fielderr then writes the field path).
func libraryOptionName(field string) string { return libraryFlags[field] }

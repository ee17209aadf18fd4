package artifact

import "github.com/shakenfist/shakectl/cmd/cmdutil"

// Shorthands for the transfer helpers artifact and instance share.
var (
	meter = cmdutil.TransferMeter
	say   = cmdutil.Say
)

//go:build !linux && !darwin && !windows

package outfile

// claimRename: no rename that refuses to replace is used on this system;
// claim links instead.
func claimRename(string, string) error { return errNoRenameNoReplace }

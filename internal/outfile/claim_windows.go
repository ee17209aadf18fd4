package outfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// claimRename is MoveFileEx without MOVEFILE_REPLACE_EXISTING, which fails
// with ERROR_ALREADY_EXISTS (fs.ErrExist) if path exists; os.Rename sets
// that flag. Every Windows file system supports it.
func claimRename(tmp, path string) error {
	from, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	if err := windows.MoveFileEx(from, to, 0); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	return nil
}

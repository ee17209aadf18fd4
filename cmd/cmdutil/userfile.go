package cmdutil

import (
	"errors"

	"github.com/shakenfist/shakectl/internal/userfile"
)

// ReadFileError turns a userfile read failure into the command's error: a
// usage error (exit 2) for a file that is missing, unreadable or over its
// bound, but the signal itself when Ctrl-C or SIGTERM ended the read, so
// the exit code is 130 or 143 and nothing is saved (issue 28, item 4).
func ReadFileError(err error) error {
	var ue *userfile.Error
	if errors.As(err, &ue) && ue.Interrupted() {
		return err
	}
	var ke *userfile.KeyError
	if err == nil {
		return nil
	}
	if errors.As(err, &ke) || errors.As(err, &ue) {
		return &UsageError{Msg: err.Error()}
	}
	return err
}

package cmdutil

import (
	"errors"

	"github.com/shakenfist/shakectl/internal/configedit"
	"github.com/shakenfist/shakectl/internal/userfile"
)

// ReadFileError turns a userfile read failure, or a config file that
// cannot be used as it is (internal/configedit, internal/configfile), into
// the command's error: a usage error (exit 2) for a file that is missing,
// unreadable, over its bound or malformed, but the signal itself when
// Ctrl-C or SIGTERM ended the read, so the exit code is 130 or 143 and
// nothing is saved.
func ReadFileError(err error) error {
	var ue *userfile.Error
	if errors.As(err, &ue) && ue.Interrupted() {
		return err
	}
	var ke *userfile.KeyError
	var ce *configedit.Error
	if err == nil {
		return nil
	}
	if errors.As(err, &ce) {
		return &UsageError{Msg: ce.Msg}
	}
	if errors.As(err, &ke) || errors.As(err, &ue) {
		return &UsageError{Msg: err.Error()}
	}
	return err
}

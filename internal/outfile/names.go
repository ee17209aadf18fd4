package outfile

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/shakenfist/shakectl/output/termtext"
)

// NameForm is what a server promises a name it sends looks like.
type NameForm int

const (
	// AnyPlainName is a plain file name and nothing more.
	AnyPlainName NameForm = iota
	// UUIDName is a UUID in its canonical text form, 36 characters
	// (8-4-4-4-12 hexadecimal digits): what Shakenfist names blobs,
	// artifacts and instances by (str(uuid.uuid4())).
	UUIDName
)

// maxNameBytes is the longest file name the common file systems take
// (NAME_MAX on Linux and macOS; NTFS's 255 UTF-16 units are no fewer).
const maxNameBytes = 255

// PlainNameProblem says why name is not a plain file name, "" when it is:
// a name that, joined to a directory, stays a file directly inside it on
// every system, and shows on a terminal as it is. Refused: the empty name,
// "." and "..", any path separator (/ and \ everywhere: a name valid here
// is valid on Windows too), an absolute or volume path, a name Windows
// reserves (NUL, COM1...), control characters (NUL, newline, ESC, C1),
// bidirectional overrides, bytes that are not UTF-8, and more than 255
// bytes.
func PlainNameProblem(name string) string {
	switch {
	case name == "":
		return "it is empty"
	case name == "." || name == "..":
		return "it is " + name
	case strings.ContainsAny(name, `/\`):
		return "it holds a path separator"
	case strings.ContainsRune(name, 0):
		return "it holds a NUL byte"
	case !utf8.ValidString(name):
		return "it is not UTF-8"
	case termtext.Unsafe(name):
		return "it holds a control character"
	case len(name) > maxNameBytes:
		return fmt.Sprintf("it is %d bytes long, more than the %d a file name may have", len(name), maxNameBytes)
	case !filepath.IsLocal(name):
		return "it is not a local file name here"
	}
	return ""
}

// ServerNameError is a name a server sent that is refused as a file name.
type ServerNameError struct {
	What, Name string // "blob", and what the server sent
	Why        string
}

func (e *ServerNameError) Error() string {
	return fmt.Sprintf("the server sent %s name %s, which is not used as a file name: %s", e.What, Quote(e.Name), e.Why)
}

// CheckServerName refuses a name a server sent for what (a "blob") that is
// not of the form the server promises, or not a plain file name: such a
// name never reaches a path, a file name or a URL path unchecked (a blob
// uuid "../../PWNED1" once made backup create write outside its folder).
func CheckServerName(what, name string, form NameForm) error {
	if why := PlainNameProblem(name); why != "" {
		return &ServerNameError{What: what, Name: name, Why: why}
	}
	if form == UUIDName && (len(name) != 36 || uuid.Validate(name) != nil) {
		return &ServerNameError{What: what, Name: name, Why: "it is not a UUID (8-4-4-4-12 hexadecimal digits), which the server promises"}
	}
	return nil
}

// ServerName is the path of the file in dir that a name a server sent
// names: dir/name, once CheckServerName accepts it. The one way a server's
// name becomes a file name.
func ServerName(dir, what, name string, form NameForm) (string, error) {
	if err := CheckServerName(what, name, form); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// quoteShown is how much of a long name Quote shows.
const quoteShown = 64

// Quote is s as a Go string literal in ASCII, safe on any terminal and
// exact (a NUL is \x00, a newline \n, ESC \x1b, U+202E \u202e); a long s is
// cut to its first 64 bytes and its length.
func Quote(s string) string {
	if len(s) <= 2*quoteShown {
		return strconv.QuoteToASCII(s)
	}
	cut := quoteShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.QuoteToASCII(s[:cut]), len(s))
}

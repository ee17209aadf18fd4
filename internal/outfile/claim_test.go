//go:build unix

package outfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A download's DEST (CheckNew) is refused when a file is there, through a
// symbolic link too, and names --clobber; with clobber it is Check.
func TestCheckNewRefusesAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "disk.qcow2")
	if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{path, link} {
		_, err := CheckNew("DEST", arg, 0o666, false)
		if err == nil || err.Error() != arg+" already exists: pass --clobber to replace it" || !errors.Is(err, fs.ErrExist) {
			t.Errorf("CheckNew(%s): %v", arg, err)
		}
		if _, err := CheckNew("DEST", arg, 0o666, true); err != nil {
			t.Errorf("CheckNew(%s, clobber): %v", arg, err)
		}
	}
}

// What appears at the name while the bytes are written (a file, a symbolic
// link to a file or to nothing, a directory) is neither replaced nor
// followed; the write fails with a TakenError that names the kept bytes.
func TestCheckNewClaimsTheNameAtTheEnd(t *testing.T) {
	for _, appears := range []string{"file", "symlink-to-file", "dangling-symlink", "directory"} {
		t.Run(appears, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "disk.qcow2")
			victim := filepath.Join(t.TempDir(), "victim")
			p, err := CheckNew("DEST", path, 0o666, false)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Write(context.Background(), nil, nil, func(w io.Writer) error {
				io.WriteString(w, "downloaded")
				switch appears {
				case "file":
					return os.WriteFile(path, []byte("theirs"), 0o600)
				case "symlink-to-file":
					if err := os.WriteFile(victim, []byte("victim's"), 0o600); err != nil {
						return err
					}
					return os.Symlink(victim, path)
				case "dangling-symlink":
					return os.Symlink(victim, path)
				}
				return os.Mkdir(path, 0o700)
			})
			var taken *TakenError
			if !errors.As(err, &taken) || !errors.Is(err, fs.ErrExist) || taken.Path != path || taken.Flag != "DEST" {
				t.Fatalf("want a TakenError for %s, got %v", path, err)
			}
			want := path + " appeared while shakectl was writing it (another download?) and was not replaced: what was written is kept as " + taken.Kept + "; move it into place, or run again with --clobber"
			if err.Error() != want {
				t.Errorf("message %q\nwant %q", err, want)
			}
			if b, err := os.ReadFile(taken.Kept); err != nil || string(b) != "downloaded" || filepath.Dir(taken.Kept) != dir {
				t.Errorf("kept %s: %q (%v)", taken.Kept, b, err)
			}
			st, _ := os.Lstat(path)
			switch appears {
			case "file":
				if b, _ := os.ReadFile(path); string(b) != "theirs" {
					t.Errorf("replaced: %q", b)
				}
			case "symlink-to-file", "dangling-symlink":
				if st == nil || st.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("the symlink was replaced")
				}
				b, err := os.ReadFile(victim)
				if appears == "symlink-to-file" && string(b) != "victim's" || appears == "dangling-symlink" && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the symlink was followed: %q (%v)", b, err)
				}
			default:
				if st == nil || !st.IsDir() {
					t.Errorf("the directory was replaced")
				}
			}
		})
	}
}

// Nothing there at the end: the name is taken, no temporary file is left.
func TestCheckNewWritesANewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "disk.qcow2")
	p, err := CheckNew("DEST", path, 0o640, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(context.Background(), nil, nil, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("got %q", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}

// The fallbacks for file systems without a no-replace rename: link(2),
// then an exclusive create and a copy. Each takes a free name (the
// temporary file gone, its mode kept), and refuses a taken one, a
// symbolic link included, keeping the temporary file.
func TestClaimFallbacks(t *testing.T) {
	for name, fn := range map[string]func(string, string) error{"claim": claim, "link": linkClaim, "copy": copyClaim} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, ".tmp")
			mk := func() {
				if err := os.WriteFile(tmp, []byte("bytes"), 0o640); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(tmp, 0o640); err != nil {
					t.Fatal(err)
				}
			}
			mk()
			free := filepath.Join(dir, "free")
			if err := fn(tmp, free); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(free)
			if b, _ := os.ReadFile(free); err != nil || string(b) != "bytes" || st.Mode().Perm() != 0o640 {
				t.Errorf("claimed %q, mode %v (%v)", b, st.Mode(), err)
			}
			if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the temporary file is still there (%v)", err)
			}
			mk()
			victim := filepath.Join(dir, "victim")
			link := filepath.Join(dir, "link")
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			for _, taken := range []string{free, link} {
				if err := fn(tmp, taken); !errors.Is(err, fs.ErrExist) {
					t.Errorf("%s: %v, want fs.ErrExist", taken, err)
				}
			}
			if b, _ := os.ReadFile(free); string(b) != "bytes" {
				t.Errorf("replaced: %q", b)
			}
			if _, err := os.Stat(victim); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("followed the symlink (%v)", err)
			}
			if b, _ := os.ReadFile(tmp); string(b) != "bytes" {
				t.Errorf("the temporary file was lost: %q", b)
			}
		})
	}
}

func TestServerName(t *testing.T) {
	const u = "25adc99e-369b-4959-a387-2ae046ee6ad4"
	if p, err := ServerName("/srv/blobs", "blob", u, UUIDName); err != nil || p != "/srv/blobs/"+u {
		t.Errorf("a UUID: %q, %v", p, err)
	}
	if p, err := ServerName("d", "file", "report.txt", AnyPlainName); err != nil || p != "d/report.txt" {
		t.Errorf("a plain name: %q, %v", p, err)
	}
	for name, why := range map[string]string{
		"":                          "it is empty",
		".":                         "it is .",
		"..":                        "it is ..",
		"../../PWNED1":              "it holds a path separator",
		`..\..\PWNED1`:              "it holds a path separator",
		"/etc/passwd":               "it holds a path separator",
		"a\x00b":                    "it holds a NUL byte",
		"a\nb":                      "it holds a control character",
		"\x1b]0;x\x07":              "it holds a control character",
		"a\u009bb":                  "it holds a control character",
		"evil\u202egnp.exe":         "it holds a control character",
		"\xff\xfe":                  "it is not UTF-8",
		strings.Repeat("x", 256):    "it is 256 bytes long, more than the 255 a file name may have",
		strings.ToUpper(u) + "/":    "it holds a path separator",
		"25adc99e369b4959a3872ae04": "it is not a UUID (8-4-4-4-12 hexadecimal digits), which the server promises",
		"{" + u + "}":               "it is not a UUID (8-4-4-4-12 hexadecimal digits), which the server promises",
	} {
		_, err := ServerName("d", "blob", name, UUIDName)
		var se *ServerNameError
		if !errors.As(err, &se) || se.Why != why {
			t.Errorf("%q: %v, want %q", name, err, why)
			continue
		}
		// The message names the value, and holds nothing a terminal obeys.
		if msg := err.Error(); !strings.Contains(msg, Quote(name)) || strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r >= 0x7f && r != '…' }) {
			t.Errorf("message %q", msg)
		}
	}
	if PlainNameProblem(strings.Repeat("x", 255)) != "" {
		t.Errorf("255 bytes refused")
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"../x":                   `"../x"`,
		"a\x00\n\x1b\u202e":      `"a\x00\n\x1b\u202e"`,
		strings.Repeat("é", 100): `"` + strings.Repeat(`\u00e9`, 32) + `"... (200 bytes)`,
		strings.Repeat("P", 300): `"` + strings.Repeat("P", 64) + `"... (300 bytes)`,
		strings.Repeat("P", 128): `"` + strings.Repeat("P", 128) + `"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestScratch(t *testing.T) {
	s, err := NewScratch("shakectl-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Remove()
	if st, err := os.Stat(s.Dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("scratch %v (%v)", st, err)
	}
	path, err := s.WriteFile("console.vv", []byte("[virt-viewer]\n"), 0o600)
	if err != nil || filepath.Dir(path) != s.Dir {
		t.Fatal(path, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if _, err := s.WriteFile("console.vv", []byte("again"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a second write of one name: %v", err)
	}
	if _, err := s.WriteFile("../x", nil, 0o600); err == nil {
		t.Errorf("a name with a separator was taken")
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("still there: %v", err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	want := time.Date(2026, time.January, 2, 3, 4, 5, 0, time.UTC)
	for _, in := range []string{"1767323045", "2026-01-02T03:04:05Z", "2026-01-02T04:04:05+01:00"} {
		got, err := parseDate(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if got, err := parseDate("2026-01-02"); err != nil || got.Format(time.DateOnly) != "2026-01-02" {
		t.Errorf("parseDate(date only) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "yesterday", "2026-13-01", "1.5"} {
		if _, err := parseDate(bad); err == nil {
			t.Errorf("parseDate(%q) accepted", bad)
		}
	}
}

func TestManDatePrecedence(t *testing.T) {
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k == "SOURCE_DATE_EPOCH" && v != "" {
				return v, true
			}
			return "", false
		}
	}
	got, err := manDate("2026-05-01", env("0"))
	if err != nil || got.Format(time.DateOnly) != "2026-05-01" {
		t.Errorf("-date does not win over SOURCE_DATE_EPOCH: %v, %v", got, err)
	}
	got, err = manDate("", env("86400"))
	if err != nil || !got.Equal(time.Unix(86400, 0)) {
		t.Errorf("SOURCE_DATE_EPOCH ignored: %v, %v", got, err)
	}
	if _, err := manDate("", env("soon")); err == nil {
		t.Error("a malformed SOURCE_DATE_EPOCH was accepted")
	}
}

func TestRunWritesAll(t *testing.T) {
	comp, man, pages := t.TempDir(), filepath.Join(t.TempDir(), "man"), t.TempDir()
	stale := "<!-- BEGIN settings: go generate ./docs -->\n| stale |\n<!-- END settings -->\n"
	if err := os.WriteFile(filepath.Join(pages, "p.md"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-completions", comp, "-man", man, "-gzip", "-date", "1767323045", "-version", "v9.9.9", "-docs", pages}, os.LookupEnv); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(comp, "_shakectl"), filepath.Join(man, "shakectl.1.gz")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(pages, "p.md")); err != nil || strings.Contains(string(b), "stale") || !strings.Contains(string(b), "`--api-url`") {
		t.Errorf("-docs did not fill the settings table: %s %v", b, err)
	}
	if err := run(nil, os.LookupEnv); err == nil {
		t.Error("no error when asked to do nothing")
	}
	if err := run([]string{"-man", man, "extra"}, os.LookupEnv); err == nil {
		t.Error("stray argument accepted")
	}
}

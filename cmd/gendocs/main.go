// Command gendocs writes shakectl's shell completion scripts and man pages
// from its command tree, and the tables of the manual (docs/*.md) that are
// made from the code.
//
//	go generate ./...                            # completions/ and docs/, via their doc.go
//	go run ./cmd/gendocs -completions completions
//	go run ./cmd/gendocs -docs docs
//	go run ./cmd/gendocs -man man -gzip -date 1767225600 -version 1.2.3
//
// The man pages' date comes from -date, else SOURCE_DATE_EPOCH, else the
// date of the checked-out commit, never from the clock, so every build of a
// commit writes the same bytes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/cmd/docgen"
)

func main() {
	if err := run(os.Args[1:], os.LookupEnv); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(args []string, env func(string) (string, bool)) error {
	fs := flag.NewFlagSet("gendocs", flag.ContinueOnError)
	completions := fs.String("completions", "", "write the completion scripts into `DIR`")
	man := fs.String("man", "", "write the man pages into `DIR`")
	pages := fs.String("docs", "", "fill the generated tables of the manual's pages in `DIR`")
	gz := fs.Bool("gzip", false, "gzip the man pages (NAME.1.gz)")
	date := fs.String("date", "", "man page date: Unix seconds, RFC 3339 or YYYY-MM-DD (default SOURCE_DATE_EPOCH, else the commit date)")
	version := fs.String("version", "", "release version for the man pages' header")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *completions == "" && *man == "" && *pages == "" {
		return errors.New("nothing to do: give -completions DIR, -man DIR and/or -docs DIR")
	}
	if *pages != "" {
		if err := docgen.WriteDocs(*pages); err != nil {
			return err
		}
	}
	if *completions != "" {
		if err := docgen.WriteCompletions(docgen.Root(), *completions); err != nil {
			return err
		}
	}
	if *man != "" {
		when, err := manDate(*date, env)
		if err != nil {
			return err
		}
		opts := docgen.ManOptions{Date: when, Version: strings.TrimPrefix(*version, "v"), Gzip: *gz}
		if err := docgen.WriteManPages(docgen.Root(), *man, opts); err != nil {
			return err
		}
	}
	return nil
}

func manDate(flagValue string, env func(string) (string, bool)) (time.Time, error) {
	if flagValue != "" {
		return parseDate(flagValue)
	}
	if v, ok := env("SOURCE_DATE_EPOCH"); ok && v != "" {
		t, err := parseDate(v)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
		}
		return t, nil
	}
	out, err := exec.Command("git", "log", "-1", "--format=%ct").Output()
	if err != nil {
		return time.Time{}, errors.New("no man page date: give -date or SOURCE_DATE_EPOCH (git could not tell the commit date)")
	}
	return parseDate(strings.TrimSpace(string(out)))
}

func parseDate(s string) (time.Time, error) {
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(secs, 0).UTC(), nil
	}
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q: want Unix seconds, RFC 3339 or YYYY-MM-DD", s)
}

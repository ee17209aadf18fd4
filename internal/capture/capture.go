// Package capture reads the exchanges recorded from real servers (the
// captures' format: one JSON file per exchange, the request sent and the
// answer received) and holds what a replay of them against a simulator
// needs: the identifiers the two servers generated, learnt from their
// answers, and the shape of a JSON answer compared with another's.
//
// The format is self-describing, so a new capture dropped into a folder is
// read without code changes:
//
//	{"seq": 12,                      optional; else the file name's leading number
//	 "request":  {"method": "POST", "path": "/instances",
//	              "headers": [["Content-Type", "application/json"]],  (or {"Name": "value"})
//	              "body": "…", "body_b64": null},
//	 "response": {"status": 200, "reason": "OK",
//	              "headers": [["Content-Type", "application/json"]],
//	              "body": "…", "body_b64": null}}
//
// A response may instead name where its body is kept, relative to the
// exchange's file: "body_file" (the whole file is the body), and with it
// "body_row" (the row of that name in a table of recorded refusals, a JSON
// array of {"name", "status", "header", "body"}: the row gives the status,
// headers and body). An exchange without a response is a setup step: it
// is sent, and has no recorded answer to compare.
//
// Used by tests only (the simulators' conformance and the proxy's replay).
package capture

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Exchange is one recorded request and the answer it got.
type Exchange struct {
	// File is the exchange's path below the folder it was loaded from.
	File string
	// Seq orders the exchanges of a folder: the order they were made in.
	Seq      int
	Request  Request
	Response *Response // nil for a setup step
	// Source says where an exchange not recorded from a live server came
	// from (the "source" field).
	Source string
}

// Request is what the client sent.
type Request struct {
	Method string
	Path   string // with its query, as sent
	Header http.Header
	Body   []byte
}

// Response is what the server answered.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// String names the exchange in messages: its number, method and path.
func (x Exchange) String() string {
	return fmt.Sprintf("%04d %s %s (%s)", x.Seq, x.Request.Method, x.Request.Path, x.File)
}

// wire is an exchange file as stored.
type wire struct {
	Seq     int    `json:"seq"`
	Source  string `json:"source"`
	Request struct {
		Method  string          `json:"method"`
		Path    string          `json:"path"`
		Headers json.RawMessage `json:"headers"`
		Body    *string         `json:"body"`
		BodyB64 *string         `json:"body_b64"`
	} `json:"request"`
	Response *struct {
		Status   int             `json:"status"`
		Headers  json.RawMessage `json:"headers"`
		Body     *string         `json:"body"`
		BodyB64  *string         `json:"body_b64"`
		BodyFile string          `json:"body_file"`
		BodyRow  string          `json:"body_row"`
	} `json:"response"`
}

// IsExchangeFile says whether a file of a capture folder holds an
// exchange: a .json file whose name starts with a digit (the captures
// number their files in the order they were made; other .json files,
// such as a folder's notes about itself, are not exchanges).
func IsExchangeFile(name string) bool {
	base := filepath.Base(name)
	return strings.HasSuffix(base, ".json") && base != "" && base[0] >= '0' && base[0] <= '9'
}

// Load reads every exchange below dir (recursively), in the order they
// were made: by sequence number, then by path.
func Load(dir string) ([]Exchange, error) {
	var xs []Exchange
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !IsExchangeFile(path) {
			return nil
		}
		x, err := ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		x.File = filepath.ToSlash(rel)
		xs = append(xs, x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(xs, func(i, j int) bool {
		if xs[i].Seq != xs[j].Seq {
			return xs[i].Seq < xs[j].Seq
		}
		return xs[i].File < xs[j].File
	})
	return xs, nil
}

// ReadFile reads one exchange file.
func ReadFile(path string) (Exchange, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Exchange{}, err
	}
	var w wire
	if err := json.Unmarshal(raw, &w); err != nil {
		return Exchange{}, fmt.Errorf("%s: %w", path, err)
	}
	if w.Request.Method == "" || !strings.HasPrefix(w.Request.Path, "/") {
		return Exchange{}, fmt.Errorf("%s: not an exchange: want a request with a method and a path starting with /", path)
	}
	x := Exchange{Seq: w.Seq, Source: w.Source}
	if x.Seq == 0 {
		x.Seq = leadingNumber(filepath.Base(path))
	}
	x.Request.Method, x.Request.Path = w.Request.Method, w.Request.Path
	if x.Request.Header, err = headers(w.Request.Headers); err != nil {
		return Exchange{}, fmt.Errorf("%s: request headers: %w", path, err)
	}
	if x.Request.Body, err = body(w.Request.Body, w.Request.BodyB64); err != nil {
		return Exchange{}, fmt.Errorf("%s: request body: %w", path, err)
	}
	if w.Response == nil {
		return x, nil
	}
	r := &Response{Status: w.Response.Status}
	if r.Header, err = headers(w.Response.Headers); err != nil {
		return Exchange{}, fmt.Errorf("%s: response headers: %w", path, err)
	}
	if r.Body, err = body(w.Response.Body, w.Response.BodyB64); err != nil {
		return Exchange{}, fmt.Errorf("%s: response body: %w", path, err)
	}
	if w.Response.BodyFile != "" {
		if err := r.readBodyFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(w.Response.BodyFile)), w.Response.BodyRow); err != nil {
			return Exchange{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	if r.Status < 100 || r.Status > 599 {
		return Exchange{}, fmt.Errorf("%s: response status %d is not an HTTP status", path, r.Status)
	}
	x.Response = r
	return x, nil
}

// readBodyFile fills the answer from a file of recorded answers.
func (r *Response) readBodyFile(path, row string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if row == "" {
		r.Body = raw
		return nil
	}
	var rows []struct {
		Name   string            `json:"name"`
		Status int               `json:"status"`
		Header map[string]string `json:"header"`
		Body   json.RawMessage   `json:"body"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil {
		return fmt.Errorf("%s: not a table of recorded answers: %w", path, err)
	}
	for _, rw := range rows {
		if rw.Name != row {
			continue
		}
		if r.Status == 0 {
			r.Status = rw.Status
		}
		for k, v := range rw.Header {
			r.Header.Set(k, v)
		}
		if r.Header.Get("Content-Type") == "" {
			r.Header.Set("Content-Type", "application/json")
		}
		r.Body = rw.Body
		return nil
	}
	return fmt.Errorf("%s has no row %q", path, row)
}

func leadingNumber(name string) int {
	end := 0
	for end < len(name) && name[end] >= '0' && name[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(name[:end])
	return n
}

// headers reads either form the captures use: a list of [name, value]
// pairs in the order sent, or an object.
func headers(raw json.RawMessage) (http.Header, error) {
	h := http.Header{}
	if len(raw) == 0 || string(raw) == "null" {
		return h, nil
	}
	var pairs [][]string
	if err := json.Unmarshal(raw, &pairs); err == nil {
		for _, p := range pairs {
			if len(p) != 2 {
				return nil, fmt.Errorf("header %q is not a [name, value] pair", p)
			}
			h.Add(p[0], p[1])
		}
		return h, nil
	}
	var obj map[string]string
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, errors.New("want a list of [name, value] pairs or an object of names and values")
	}
	for k, v := range obj {
		h.Set(k, v)
	}
	return h, nil
}

func body(text, b64 *string) ([]byte, error) {
	if b64 != nil {
		return base64.StdEncoding.DecodeString(*b64)
	}
	if text != nil {
		return []byte(*text), nil
	}
	return nil, nil
}

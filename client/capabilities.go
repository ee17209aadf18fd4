package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/shakenfist/shakectl/internal/redact"
)

// Capability strings the client reads from the server's root page.
const (
	CapNetworkDeleteAsync        = "network-delete-async"
	CapClusterResources          = "cluster-resources"
	CapGetClusterOperations      = "get-cluster-operations"
	CapClusterOperationChain     = "cluster-operation-chain"
	CapClusterOperationsByTarget = "cluster-operations-by-target"
	CapProvideDNS                = "provide-dns"
	CapListAddresses             = "list-addresses"
	CapEventsByType              = "events-by-type"
	// CapGeneratedKeySecrets is the 2026 auth family (keys as objects,
	// with expiry, rotated by PUT /auth/namespaces/{ns}/keys/{name}).
	CapGeneratedKeySecrets = "generated-key-secrets"
)

// Capabilities is what a server says it can do. Shakenfist lists
// "machine searchable API capabilities" on its unauthenticated root page,
// GET / (shakenfist da448b1a and 2026 external_api/app.py Root), and
// client-python reads that page once per client (_collect_capabilities)
// and greps it (check_capability). Known is false when the page could not
// be read or lists nothing: then callers fall back to the route's own
// answer.
type Capabilities struct {
	Known bool
	names map[string]bool
}

// Has reports whether the server advertises the capability.
func (c Capabilities) Has(name string) bool { return c.names[name] }

// Names lists the advertised capabilities, sorted.
func (c Capabilities) Names() []string {
	out := make([]string, 0, len(c.names))
	for n := range c.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var (
	capTag   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })
	capToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z0-9][a-z0-9-]*`) })
)

// maxRootPage bounds the root page read: the real one is under 3 KiB.
const maxRootPage = 256 << 10

// ParseCapabilities reads the root page's capability list: the text
// between "Machine searchable API capabilities" and "</ul>", without its
// tags, as words. Reading words rather than grepping the whole page (as
// client-python does) keeps "network-delete-async" from matching inside
// another word, and survives the 2024 page's missing "</li>" after
// "extra-dns-entries".
func ParseCapabilities(page []byte) Capabilities {
	s := string(page)
	i := strings.Index(s, "Machine searchable API capabilities")
	if i < 0 {
		return Capabilities{}
	}
	s = s[i+len("Machine searchable API capabilities"):]
	if j := strings.Index(s, "</ul>"); j >= 0 {
		s = s[:j]
	}
	s = capTag().ReplaceAllString(s, " ")
	names := map[string]bool{}
	for _, w := range capToken().FindAllString(s, -1) {
		names[w] = true
	}
	return Capabilities{Known: len(names) > 0, names: names}
}

type capabilityCache struct {
	mu     sync.Mutex
	loaded bool
	caps   Capabilities
}

// Capabilities reads the server's capabilities once per client and keeps
// them (client-python reads them once, in Client.__init__). An answer that
// is not the root page (a load balancer's 404, a redirect) counts as "none
// advertised" and is kept too; a transport error is returned and not kept,
// so a later call may try again.
func (c *Client) Capabilities(ctx context.Context) (Capabilities, error) {
	c.caps.mu.Lock()
	defer c.caps.mu.Unlock()
	if c.caps.loaded {
		return c.caps.caps, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/"), nil)
	if err != nil {
		return Capabilities{}, fmt.Errorf("GET /: %w", redact.URLError(err))
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := c.public.Do(req)
	if err != nil {
		return Capabilities{}, &TransportError{Method: http.MethodGet, URL: c.shownEndpoint("/"), Attempts: 1, Err: redact.URLError(err)}
	}
	defer resp.Body.Close()
	var caps Capabilities
	if resp.StatusCode == http.StatusOK {
		page, _ := io.ReadAll(io.LimitReader(resp.Body, maxRootPage))
		caps = ParseCapabilities(page)
	}
	c.caps.loaded, c.caps.caps = true, caps
	return caps, nil
}

// require fails with a *NotSupportedError when the server's root page
// lists capabilities and this one is not among them. When the server lists
// none (or the page cannot be read), the request goes ahead and the
// route's own answer decides.
func (c *Client) require(ctx context.Context, capability, feature string) error {
	caps, err := c.Capabilities(ctx)
	if err != nil || !caps.Known || caps.Has(capability) {
		return nil
	}
	return &NotSupportedError{Feature: feature, Capability: capability}
}

package builders

import (
	"fmt"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// SystemNamespace is the namespace whose key reaches every namespace, and
// which the server's delete-alls read as "all of them": shakenfist
// da448b1a baseobject.namespace_filter passes every object when the
// namespace is "system", so DELETE /instances {"namespace": "system"} with
// the system key queued the deletion of every namespace's instances
// (captures commands/da1-nons). The server asks a system
// caller to name the namespace so that deleting everything "is a
// deliberate act" (InstancesEndpoint.delete's comment); sf-client sends
// null without --namespace and gets 400.
const SystemNamespace = "system"

// DestructiveAnnotation marks a command that deletes many objects at once
// (built by NewDeleteAllCmd): its scope is judged by ResolveScope before
// anything is sent, and the tree walk in cmd/root keeps every such command
// on it.
const DestructiveAnnotation = "shakectl/destructive-scope"

// Scope is what a delete of many objects acts on, as the server will read
// it.
type Scope struct {
	// Namespace is what is sent as the body's "namespace".
	Namespace string
	// All says the server reads Namespace as every namespace: "system",
	// sent with the system key.
	All bool
}

// String names what the server will delete in, for the question, the
// --yes note and the help: `namespace "ci"` or every namespace.
func (sc Scope) String() string {
	if sc.All {
		return `EVERY namespace (namespace "system" with the system key means all of them)`
	}
	return fmt.Sprintf("namespace %q", sc.Namespace)
}

// ScopeRequest is what the user said about a destructive call's scope:
// the namespace named (--namespace, or the NAMESPACE argument), and
// --all-namespaces where the command has it.
type ScopeRequest struct {
	Namespace string
	// AllNamespaces is --all-namespaces; AllowAll says the command has
	// the flag at all (namespace clean does not).
	AllNamespaces, AllowAll bool
	// Named says how the command takes the namespace, for the messages:
	// "--namespace" or "NAMESPACE".
	Named string
}

// ResolveScope is the one rule for the scope of a call that deletes many
// objects, so that such a call never does more than the user said: it is
// judged from the key's namespace (the one authenticated to) and what
// the user named, before anything is sent. What is not explicit is a usage
// error (exit 2):
//
//   - the system key with no namespace: the server would take nothing as
//     its 400 and "system" as every namespace, so shakectl must not fill
//     one in;
//   - the system key naming "system" without --all-namespaces: that is every
//     namespace, which must be asked for by name;
//   - --all-namespaces with another key, which reaches only its own.
//
// Another key with no namespace acts on its own namespace, which is what
// the server does with it (InstancesEndpoint.delete), so it is filled in.
func ResolveScope(s *cmdutil.Session, req ScopeRequest) (Scope, error) {
	key := s.Cfg.Namespace
	cmd := s.F.Command.CommandPath()
	usage := func(format string, a ...any) error {
		return &cmdutil.UsageError{Msg: fmt.Sprintf(format, a...) + "; nothing was sent", Command: cmd}
	}
	if key != SystemNamespace {
		if req.AllNamespaces {
			return Scope{}, usage("--all-namespaces needs the system key: the key of namespace %q deletes only in %q", key, key)
		}
		if req.Namespace == "" {
			return Scope{Namespace: key}, nil
		}
		// Another namespace is the server's to refuse (401 "you cannot
		// delete other namespaces"): it is never wider than asked.
		return Scope{Namespace: req.Namespace}, nil
	}
	switch {
	case req.AllNamespaces && req.Namespace != "" && req.Namespace != SystemNamespace:
		return Scope{}, usage("--all-namespaces and %s %s contradict each other: give one", req.Named, req.Namespace)
	case req.AllNamespaces:
		return Scope{Namespace: SystemNamespace, All: true}, nil
	case req.Namespace == SystemNamespace && req.AllowAll:
		return Scope{}, usage(`with the system key, namespace "system" means every namespace to the server: pass --all-namespaces to delete in every namespace`)
	case req.Namespace == SystemNamespace:
		return Scope{}, usage(`with the system key, namespace "system" means every namespace to the server, and %s acts on one namespace at a time`, cmd)
	case req.Namespace == "" && req.AllowAll:
		return Scope{}, usage("the system key reaches every namespace, so %s needs %s NAMESPACE (or --all-namespaces for every namespace)", cmd, req.Named)
	case req.Namespace == "":
		return Scope{}, usage("the system key reaches every namespace, so %s needs %s", cmd, req.Named)
	}
	return Scope{Namespace: req.Namespace}, nil
}

// ConfirmScope asks (Confirm) before deleting every one of what in sc, in
// the words of what the server will delete; with --yes it says so on
// stderr instead (unless --quiet), so that a log shows the scope too.
func ConfirmScope(s *cmdutil.Session, yes bool, what string, sc Scope) error {
	if yes {
		s.Note("deleting", "deleting ALL %s of %s", what, sc)
		return nil
	}
	return Confirm(s, false, fmt.Sprintf("Delete ALL %s of %s", what, sc))
}

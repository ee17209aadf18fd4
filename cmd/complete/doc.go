// Package complete completes the values a user types at TAB: the names of
// the API's objects (instances, networks, artifacts, blobs, nodes,
// namespaces …), fetched within a short bound and never failing visibly,
// and the values of a few flags. Each noun's commands use it for their
// arguments and flags; the kernel (cmdutil) does not import it, and
// cmd/root hands it the --namespace setting's completion
// (cmdutil.Factory.CompleteNamespaces). cmd/completion is the command
// that prints the shell scripts calling it.
package complete

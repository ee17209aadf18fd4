// Package cmdutil holds what every command shares: the Factory that hands
// commands their dependencies, the resolved configuration, typed errors and
// the one mapping from errors to exit codes, output flag checks, name
// completion from the API, wait helpers, and the declarative resource model
// (Resource[T]) from which list and show commands are built.
package cmdutil

// Package builders makes the commands that share one shape from a
// description, on top of the kernel (cmd/cmdutil): the one declaration of
// a command's arguments and their completion (Args), a noun's group
// (GroupSpec), list and show of a Resource, a verb that prints one object
// or a list (RefDetailSpec, RefListSpec),
// events (EventsSpec), the metadata verbs (MetadataSpec), a namespace-wide
// delete (DeleteAllSpec), and the one way to wait (Await, on client/poll;
// ForState and AwaitAsync for a resource's state). Every command it
// builds is a cmdutil.Verb: the kernel opens the session.
//
// The layering: builders imports cmdutil and cmd/complete, never the
// reverse; the kernel knows nothing of the builders, and the errors a wait
// ends with (cmdutil.WaitTimeoutError, cmdutil.InstanceFailedError) are
// the kernel's types so that it can describe them and map their exit codes.
package builders

// Package cmdutil is the kernel every command stands on: the Factory that
// hands commands their dependencies, the Session of an API command, the
// typed settings and the resolved Config, and the errors and exit codes of
// its own types.
//
// # One way to write a command
//
// The Cobra command is the declaration and the kernel adds the run (the
// rule of hcloud's base.Cmd):
//
//		c := cmdutil.Verb(f, &cobra.Command{Use: "show", Short: "…"}, func(s *cmdutil.Session, args []string) error {
//			inst, err := s.Client.GetInstance(s.Ctx, args[0])
//			…
//		})
//		c.Flags().BoolVar(&all, "all", false, "…")
//		return builders.Args(c, "INSTANCE", complete.InstanceNames(f))
//
//	  - Verb is a command that talks to the Shakenfist API: the kernel opens
//	    the Session (configuration, client, the context of its requests)
//	    before the run and closes it after. It takes every client option.
//	  - Local is a command that does not (version, sim, proxy, context …):
//	    its run gets the command and its arguments. It takes no client
//	    option unless Takes declares some (proxy and wrap take the API URL).
//	  - A declaration has no RunE or Args (builders.Args declares those); a
//	    check that must refuse before anything is sent is its PreRunE.
//	  - The generic builders (list, show, events, metadata, delete-all …)
//	    and the waits live in cmd/builders, on top of the kernel: they make
//	    Verbs from a resource's description. Name completion lives in
//	    cmd/complete. The kernel imports neither, nor any feature package.
//
// Nothing else opens a session or sets a RunE: cmd/root's tree test walks
// every command and fails on one not built so (KernelAnnotation,
// ArgsAnnotation), and scans the sources for a hand-made run or Args.
//
// # Options
//
// Every setting is declared once (Settings), as a typed Option[T] (hcloud's
// rule): its Decl (flag, environment names, config key, scope, completion,
// secret or not), its Default, its one Parse for the flag's, the
// environment's and the file's text, and its Field in Config. The table is
// a []Setting, the non-generic face of every Option: the flags
// (AddSettingFlags), LoadConfig, config view, the "configuration" help
// topic's table (SettingsMarkdown) and CheckClientFlags are all made from it. A
// command's --help lists the options it takes and no other (BindOptions),
// and a client flag given to a command that does not take it is refused
// with a message made from the declarations (CheckClientFlags). Reading
// the files is internal/configfile's; layering them is LoadConfig's.
package cmdutil

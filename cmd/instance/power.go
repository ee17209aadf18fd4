package instance

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// runPower sends one power action. The real server answers 200
// with body null: the action was accepted and there is nothing to print on
// stdout; an answer with the instance is printed.
func runPower(s *cmdutil.Session, ref string, action client.PowerAction) error {
	inst, err := s.Client.InstancePower(s.Ctx, ref, action)
	if err != nil {
		return err
	}
	if inst == nil {
		s.Note("done", "instance %s: %s", ref, powerDone(action))
		return nil
	}
	return s.PrintDetail(instanceDetail(inst))
}

// powerDone says what a power action did in words, not the API's route
// name ("rebooted (hard)", not "reboothard").
func powerDone(action client.PowerAction) string {
	switch action {
	case client.PowerOn:
		return "powered on"
	case client.PowerOff:
		return "powered off"
	case client.RebootSoft:
		return "rebooted (soft)"
	case client.RebootHard:
		return "rebooted (hard)"
	case client.Pause:
		return "paused"
	case client.Unpause:
		return "unpaused"
	}
	return string(action) + " done"
}

// newCmdAction builds the power commands, which all take one
// instance.
func newCmdAction(f *cmdutil.Factory, name, short string, action client.PowerAction) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   name,
		Short: short,
		Long: short + `, named by UUID or name. The server confirms with an empty answer;
shakectl says so on stderr (unless --quiet) and prints nothing on stdout.
An instance that is not created yet is refused (406), and a powered-off one
cannot be paused or rebooted (409 "Invalid lifecycle state").`,
		Example: fmt.Sprintf("  shakectl instance %s web1", name),
	}, func(s *cmdutil.Session, args []string) error {
		return runPower(s, args[0], action)
	})
	return builders.Args(c, "INSTANCE", complete.InstanceNames(f))
}

// NewCmdReboot builds `shakectl instance reboot [--hard]`.
func NewCmdReboot(f *cmdutil.Factory) *cobra.Command {
	var hard bool
	c := &cobra.Command{
		Use:   "reboot",
		Short: "Reboot an instance (soft by default, --hard to reset it)",
		Long: `Reboot an instance, named by UUID or name. A soft reboot asks the guest to
restart (ACPI, the server's rebootsoft); --hard resets the virtual machine
like a power button (reboothard). A powered-off instance cannot be rebooted
(409 "Invalid lifecycle state").`,
		Example: `  shakectl instance reboot web1
  shakectl instance reboot web1 --hard`,
	}
	cmdutil.Verb(f, c, func(s *cmdutil.Session, args []string) error {
		action := client.RebootSoft
		if hard {
			action = client.RebootHard
		}
		return runPower(s, args[0], action)
	})
	builders.Args(c, "INSTANCE", complete.InstanceNames(f))
	c.Flags().BoolVar(&hard, "hard", false, "reset the instance instead of asking the guest to reboot")
	return c
}

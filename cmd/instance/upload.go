package instance

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/transfer"
)

// NewCmdUpload builds `shakectl instance upload`.
func NewCmdUpload(f *cmdutil.Factory) *cobra.Command {
	var (
		af   agentFlags
		mode string
	)
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "upload",
		Short: "Copy a local file into an instance through its agent",
		Long: `Copy the local file SOURCE to DEST inside the instance. As sf-client does,
the file becomes a blob first (the artifact upload-to-INSTANCE; a blob the
cluster already holds with the same sha512 is used instead, and the upload
streams with a progress bar and resumes, see artifact upload), then the
agent writes it at DEST with SOURCE's permissions (--mode to choose).

--deadline and --progress-timeout bound the agent's operation on 2026
servers (expired: exit 124 with the reason); a 2024 server is refused them
before anything is sent.`,
		Example: `  shakectl instance upload ci1 ./test.sh /tmp/test.sh
  shakectl instance upload ci1 ./big.tar /srv/big.tar --progress-timeout 1m`,
	}, func(s *cmdutil.Session, args []string) error {
		start := time.Now()
		t, err := af.request(s.F.Command)
		if err != nil {
			return err
		}
		file, size, err := transfer.OpenUpload(args[1])
		if err != nil {
			return err
		}
		defer file.Close()
		if mode == "" {
			st, err := file.Stat()
			if err != nil {
				return err
			}
			mode = fmt.Sprintf("%o", st.Mode().Perm())
		}

		if t.Deadline != nil || t.ProgressTimeout != nil {
			// Refuse the flags before a long upload, not after it.
			if !s.Client.HasCapability(s.Ctx, client.CapabilityAgentDeadlines) {
				return &client.NotSupportedError{Feature: "agent operation deadlines", Capability: client.CapabilityAgentDeadlines}
			}
		}
		name := "upload-to-" + args[0]
		a, err := transfer.UploadFile(s, name, file, args[1], size, client.ArtifactUploadRequest{}, "", false,
			func(id string) string {
				return fmt.Sprintf("shakectl artifact upload %s %s --resume %s; then shakectl instance upload again", name, args[1], id)
			})
		if err != nil {
			return err
		}
		op, err := s.Client.InstancePut(s.Ctx, args[0], a.BlobUUID, args[2], mode, t)
		if err != nil {
			return err
		}
		op, err = awaitAgentOp(s, start, op, af.poll)
		if err != nil {
			return err
		}
		for k, r := range op.Results {
			if r.Failed() {
				return fmt.Errorf("agent operation %s: step %s failed: %s", op.UUID, k, r.Message)
			}
		}
		s.Note("uploaded", "%s is %s in instance %s (blob %s)", args[1], args[2], args[0], a.BlobUUID)
		return nil
	})
	builders.Args(c, "INSTANCE SOURCE DEST", complete.InstanceNames(f))
	af.add(c)
	c.Flags().StringVar(&mode, "mode", "", "the file's mode inside the instance (default SOURCE's, e.g. 644)")
	return c
}

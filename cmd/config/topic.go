package config

import (
	"strings"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Topic is `shakectl help configuration`, and the README's Configuration
// section says the same. Its list of settings is made from the settings
// table, so it names every flag's environment variables as they are.
func Topic() string {
	var client []string
	for _, s := range cmdutil.Settings() {
		if d := s.Declared(); d.Scope == cmdutil.ClientCommands {
			client = append(client, "--"+d.Name)
		}
	}
	return `shakectl reads its settings from, highest precedence first:

  1. flags                  --api-url, --namespace, --key, -o, --timeout, …
  2. environment variables  SHAKECTL_<FLAG> for every global flag (e.g.
                            SHAKECTL_OUTPUT, SHAKECTL_TIMEOUT), and
                            sf-client's SHAKENFIST_API_URL,
                            SHAKENFIST_NAMESPACE, SHAKENFIST_KEY and
                            SHAKENFIST_ASYNC (SHAKECTL_ wins over SHAKENFIST_)
  3. the selected context   --context NAME, else SHAKECTL_CONTEXT, else the
                            file's current-context: api-url, namespace and
                            key under "contexts:" (shakectl context …)
  4. the config file        $XDG_CONFIG_HOME/shakectl/config.yaml (default
                            ~/.config/shakectl/config.yaml), or --config
                            FILE, or SHAKECTL_CONFIG; keys are the global
                            flags' names, e.g. "api-url: http://sf/api"
  5. sf-client's files      ~/.shakenfist, else /etc/sf/shakenfist.json
                            (taken whole: never mixed with one another)
  6. defaults

Every setting, its environment variables and where else it may be set:

` + cmdutil.SettingsHelp() + `
A file that holds the key must be readable by you alone (chmod 600);
shakectl warns when it is not. A bad value names where it came from, e.g.
'invalid output format "xml" … (from environment variable SHAKECTL_OUTPUT)'.

"shakectl config view" prints every value and its source, the key redacted.

The client's flags (` + strings.Join(client, ", ") + `) apply to
the commands that talk to the API; proxy and wrap take the API URL, the
context and --insecure of them, and any other command refuses them (exit 2),
naming the commands that take them.
`
}

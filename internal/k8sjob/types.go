package k8sjob

// The subset of batch/v1 Job and core/v1 Pod this package writes, spelt as
// the Kubernetes API spells it (k8s.io/api v0.37). Fields that must appear
// even when false or zero have no omitempty.

// Job is a batch/v1 Job.
type Job struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   ObjectMeta `json:"metadata"`
	Spec       JobSpec    `json:"spec"`
}

// ObjectMeta is metav1.ObjectMeta's name, namespace and labels.
type ObjectMeta struct {
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// JobSpec is batchv1.JobSpec.
type JobSpec struct {
	CompletionMode          string          `json:"completionMode"`
	Completions             int32           `json:"completions"`
	Parallelism             int32           `json:"parallelism"`
	BackoffLimitPerIndex    int32           `json:"backoffLimitPerIndex"`
	TTLSecondsAfterFinished int32           `json:"ttlSecondsAfterFinished"`
	Template                PodTemplateSpec `json:"template"`
}

// PodTemplateSpec is corev1.PodTemplateSpec.
type PodTemplateSpec struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     PodSpec    `json:"spec"`
}

// PodSpec is corev1.PodSpec.
type PodSpec struct {
	RestartPolicy                string                     `json:"restartPolicy"`
	AutomountServiceAccountToken *bool                      `json:"automountServiceAccountToken"`
	EnableServiceLinks           *bool                      `json:"enableServiceLinks,omitempty"`
	SecurityContext              *PodSecurityContext        `json:"securityContext,omitempty"`
	TopologySpreadConstraints    []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	Containers                   []Container                `json:"containers"`
}

// PodSecurityContext is corev1.PodSecurityContext.
type PodSecurityContext struct {
	RunAsNonRoot   *bool           `json:"runAsNonRoot,omitempty"`
	RunAsUser      int64           `json:"runAsUser,omitempty"`
	RunAsGroup     int64           `json:"runAsGroup,omitempty"`
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
}

// SeccompProfile is corev1.SeccompProfile.
type SeccompProfile struct {
	Type string `json:"type"`
}

// TopologySpreadConstraint is corev1.TopologySpreadConstraint.
type TopologySpreadConstraint struct {
	MaxSkew           int32          `json:"maxSkew"`
	TopologyKey       string         `json:"topologyKey"`
	WhenUnsatisfiable string         `json:"whenUnsatisfiable"`
	LabelSelector     *LabelSelector `json:"labelSelector,omitempty"`
	NodeTaintsPolicy  string         `json:"nodeTaintsPolicy,omitempty"`
}

// LabelSelector is metav1.LabelSelector's matchLabels.
type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// Container is corev1.Container.
type Container struct {
	Name            string               `json:"name"`
	Image           string               `json:"image"`
	Args            []string             `json:"args"`
	Env             []EnvVar             `json:"env,omitempty"`
	Resources       ResourceRequirements `json:"resources"`
	SecurityContext *SecurityContext     `json:"securityContext,omitempty"`
}

// EnvVar is corev1.EnvVar with a literal value.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ResourceRequirements is corev1.ResourceRequirements; quantities are
// strings ("1", "320Mi").
type ResourceRequirements struct {
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

// SecurityContext is corev1.SecurityContext.
type SecurityContext struct {
	AllowPrivilegeEscalation *bool         `json:"allowPrivilegeEscalation"`
	ReadOnlyRootFilesystem   *bool         `json:"readOnlyRootFilesystem"`
	RunAsNonRoot             *bool         `json:"runAsNonRoot,omitempty"`
	Capabilities             *Capabilities `json:"capabilities,omitempty"`
}

// Capabilities is corev1.Capabilities' drop list.
type Capabilities struct {
	Drop []string `json:"drop"`
}

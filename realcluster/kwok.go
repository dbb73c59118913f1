package main

// kwok's configuration: kwok's own stages for nodes (Ready, then a heartbeat with the node
// Lease) and for pods (Running and Ready once scheduled; Succeeded or Failed when done), and
// exec and logs served locally so that `kubectl exec` and `kubectl logs` go through the
// apiserver to kwok. A terminating pod is removed when its grace period ends by the
// launcher's terminator (terminator.go), as a kubelet does for a container that ignores
// SIGTERM (`sleep infinity`).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
)

// The log every container writes (kwok serves one file, in the CRI log format, for the
// containers it matches).
const containerLog = "2026-01-01T00:00:00.000000000Z stdout F desktop ready\n"

func writeKwokConfig(path, execDir, logDir string) error {
	logFile := filepath.Join(logDir, "containers.log")
	if err := os.WriteFile(logFile, []byte(containerLog), 0o600); err != nil {
		return err
	}
	local := fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: local
spec:
  execs:
  - local:
      workDir: %q
      envs:
      - name: HOME
        value: %q
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: local
spec:
  logs:
  - logsFile: %q
    follow: true
`, execDir, execDir, logFile)
	docs := []string{
		nodefast.DefaultNodeInit,
		nodeheartbeat.DefaultNodeHeartbeatWithLease,
		podfast.DefaultPodReady,
		podfast.DefaultPodComplete,
		local,
	}
	for i, d := range docs {
		docs[i] = strings.TrimSpace(d)
	}
	return os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")+"\n"), 0o600)
}

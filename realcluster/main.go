// Command realcluster starts a real Kubernetes control plane on loopback for ctpool's tests:
// etcd (embedded), kube-apiserver, kube-controller-manager, kube-scheduler and kwok with fake
// nodes, plus a small volume provisioner for the default StorageClass. It writes an admin
// kubeconfig and a ready file, then runs until SIGTERM or SIGINT, when it stops everything.
//
// It is started by `npm run real -- up`, which builds it and the Kubernetes components from
// the modules that go.mod names; it is not meant to be run by hand.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// options are the launcher's flags.
type options struct {
	bin        string
	state      string
	nodes      int
	nodeCPU    string
	nodeMemory string
	nodePods   string
}

// ready is what the launcher writes to <state>/ready.json once the nodes are Ready.
type ready struct {
	PID        int               `json:"pid"`
	Server     string            `json:"server"`
	Kubeconfig string            `json:"kubeconfig"`
	AuditLog   string            `json:"auditLog"`
	Nodes      []string          `json:"nodes"`
	Versions   map[string]string `json:"versions"`
	StartedMs  int64             `json:"startedMs"`
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "", "folder with kube-apiserver, kube-controller-manager, kube-scheduler and kwok")
	flag.StringVar(&o.state, "state", "", "folder for the cluster's state (etcd data, certificates, logs)")
	flag.IntVar(&o.nodes, "nodes", 3, "how many kwok nodes")
	flag.StringVar(&o.nodeCPU, "node-cpu", "64", "cpu capacity of each node")
	flag.StringVar(&o.nodeMemory, "node-memory", "32Gi", "memory capacity of each node")
	flag.StringVar(&o.nodePods, "node-pods", "250", "pod capacity of each node")
	flag.Parse()
	if o.bin == "" || o.state == "" {
		fmt.Fprintln(os.Stderr, "realcluster: --bin and --state are required")
		os.Exit(2)
	}
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	log.SetPrefix("realcluster ")

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cp, err := start(ctx, o)
	if err != nil {
		log.Printf("start failed: %v", err)
		if cp != nil {
			cp.stop()
		}
		os.Exit(1)
	}
	select {
	case <-ctx.Done():
		log.Printf("stopping")
	case err := <-cp.failed:
		log.Printf("a component stopped: %v", err)
	}
	cp.stop()
	log.Printf("stopped")
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func freePorts(n int) ([]int, error) {
	// Hold every listener until all are chosen, so that no port is handed out twice.
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writeReady writes the ready file atomically (a rename), so a reader never sees half of it.
func writeReady(path string, r ready) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// nodeNames are the kwok nodes' names, as the simulated cluster names its nodes.
func nodeNames(n int) []string {
	names := make([]string, 0, n)
	for i := range n {
		if i < 26 {
			names = append(names, "node-"+string(rune('a'+i)))
		} else {
			names = append(names, fmt.Sprintf("node-%d", i+1))
		}
	}
	return names
}

func must(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func stateFile(o options, parts ...string) string {
	return filepath.Join(append([]string{o.state}, parts...)...)
}

func waitFor(ctx context.Context, what string, timeout time.Duration, check func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := check()
		if ok {
			return nil
		}
		last = err
		if time.Now().After(deadline) {
			if last != nil {
				return fmt.Errorf("%s: not within %s: %w", what, timeout, last)
			}
			return fmt.Errorf("%s: not within %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func joinArgs(args []string) string { return strings.Join(args, " ") }

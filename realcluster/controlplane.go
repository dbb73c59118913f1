package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// controlPlane is a started cluster: embedded etcd and the components' processes.
type controlPlane struct {
	etcd     *embed.Etcd
	procs    []*component
	cancel   context.CancelFunc
	failed   chan error
	stopOnce sync.Once
}

// component is one child process of the control plane.
type component struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

func start(parent context.Context, o options) (*controlPlane, error) {
	started := time.Now()
	ctx, cancel := context.WithCancel(parent)
	cp := &controlPlane{cancel: cancel, failed: make(chan error, 8)}
	for _, dir := range []string{"pki", "etcd", "logs", "volumes", "exec"} {
		if err := os.MkdirAll(stateFile(o, dir), 0o700); err != nil {
			return cp, err
		}
	}
	ports, err := freePorts(6)
	if err != nil {
		return cp, must(err, "choose ports")
	}
	etcdClient, etcdPeer, apiPort, kcmPort, schedPort, kwokPort := ports[0], ports[1], ports[2], ports[3], ports[4], ports[5]
	loopback := []net.IP{net.ParseIP("127.0.0.1")}

	// Certificates.
	p, err := newPKI(stateFile(o, "pki"))
	if err != nil {
		return cp, must(err, "make the CA")
	}
	serving, err := p.serving("apiserver", []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}, append(loopback, net.ParseIP("10.96.0.1")))
	if err != nil {
		return cp, err
	}
	kubeletServing, err := p.serving("kwok-serving", []string{"localhost"}, loopback)
	if err != nil {
		return cp, err
	}
	sa, err := p.serviceAccountKey()
	if err != nil {
		return cp, err
	}
	clients := map[string]keyPair{}
	for _, c := range []struct{ name, cn, group string }{
		{"admin", "ctpool-admin", "system:masters"},
		{"controller-manager", "system:kube-controller-manager", ""},
		{"scheduler", "system:kube-scheduler", ""},
		{"kwok", "kwok-controller", "system:masters"},
		{"apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters"},
	} {
		groups := []string{}
		if c.group != "" {
			groups = append(groups, c.group)
		}
		kp, err := p.client(c.name, c.cn, groups...)
		if err != nil {
			return cp, err
		}
		clients[c.name] = kp
	}
	server := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	kubeconfigs := map[string]string{}
	for name, kp := range clients {
		path := stateFile(o, name+".kubeconfig")
		if err := writeKubeconfig(path, server, p.CAData(), kp, name); err != nil {
			return cp, err
		}
		kubeconfigs[name] = path
	}

	// etcd, in this process.
	cfg := embed.NewConfig()
	cfg.Name = "ctpool-realcluster"
	cfg.Dir = stateFile(o, "etcd")
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{stateFile(o, "logs", "etcd.log")}
	clientURL, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(etcdClient))
	peerURL, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(etcdPeer))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*clientURL}, []url.URL{*clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peerURL}, []url.URL{*peerURL}
	cfg.InitialCluster = cfg.Name + "=" + peerURL.String()
	// The tests' data is small and short-lived: no fsync needed for each write.
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return cp, must(err, "start etcd")
	}
	cp.etcd = e
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		return cp, errors.New("etcd did not become ready within 60 s")
	}
	log.Printf("etcd ready on %s", clientURL)

	auditPolicy := stateFile(o, "audit-policy.yaml")
	if err := os.WriteFile(auditPolicy, []byte(auditPolicyYAML), 0o600); err != nil {
		return cp, err
	}
	auditLog := stateFile(o, "logs", "audit.log")
	apiArgs := []string{
		"--etcd-servers=" + clientURL.String(),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--tls-cert-file=" + serving.Cert,
		"--tls-private-key-file=" + serving.Key,
		"--client-ca-file=" + p.CAFile(),
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + sa.Cert,
		"--service-account-signing-key-file=" + sa.Key,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--kubelet-client-certificate=" + clients["apiserver-kubelet-client"].Cert,
		"--kubelet-client-key=" + clients["apiserver-kubelet-client"].Key,
		"--kubelet-preferred-address-types=InternalIP",
		"--audit-policy-file=" + auditPolicy,
		"--audit-log-path=" + auditLog,
		"--audit-log-mode=blocking",
		"--audit-log-maxsize=0",
		"--profiling=false",
		"--v=1",
	}
	if err := cp.run(ctx, o, "kube-apiserver", apiArgs); err != nil {
		return cp, err
	}
	admin, err := clientFor(kubeconfigs["admin"])
	if err != nil {
		return cp, err
	}
	if err := waitFor(ctx, "kube-apiserver /readyz", 120*time.Second, func() (bool, error) {
		body, err := admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", err
	}); err != nil {
		return cp, err
	}
	log.Printf("kube-apiserver ready at %s", server)

	if err := cp.run(ctx, o, "kube-controller-manager", append(clientComponentFlags(kubeconfigs["controller-manager"], kcmPort),
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+sa.Key,
		"--root-ca-file="+p.CAFile(),
		"--cluster-signing-cert-file="+p.CAFile(),
		"--cluster-signing-key-file="+p.path("ca.key"),
		"--controllers=*",
	)); err != nil {
		return cp, err
	}
	if err := cp.run(ctx, o, "kube-scheduler", clientComponentFlags(kubeconfigs["scheduler"], schedPort)); err != nil {
		return cp, err
	}

	// Nodes and the default StorageClass before kwok, so kwok finds its nodes at once.
	names := nodeNames(o.nodes)
	if err := createNodes(ctx, admin, names, o); err != nil {
		return cp, err
	}
	if err := createStorageClass(ctx, admin); err != nil {
		return cp, err
	}
	kwokConfig := stateFile(o, "kwok.yaml")
	if err := writeKwokConfig(kwokConfig, stateFile(o, "exec"), stateFile(o, "logs")); err != nil {
		return cp, err
	}
	if err := cp.run(ctx, o, "kwok", []string{
		"--kubeconfig=" + kubeconfigs["kwok"],
		"--config=" + kwokConfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		"--node-ip=127.0.0.1",
		"--node-port=" + strconv.Itoa(kwokPort),
		"--server-address=127.0.0.1:" + strconv.Itoa(kwokPort),
		"--tls-cert-file=" + kubeletServing.Cert,
		"--tls-private-key-file=" + kubeletServing.Key,
		"--cidr=10.244.0.0/16",
		// kwok renews each node's Lease, as a kubelet does; without it the node lifecycle
		// controller finds no heartbeat, marks the nodes Unknown and every pod not Ready.
		"--node-lease-duration-seconds=40",
		"--v=error",
	}); err != nil {
		return cp, err
	}
	go runProvisioner(ctx, admin, stateFile(o, "volumes"), cp.failed)
	go runTerminator(ctx, admin, cp.failed)

	if err := waitFor(ctx, "nodes Ready", 120*time.Second, func() (bool, error) {
		return nodesReady(ctx, admin, names)
	}); err != nil {
		return cp, err
	}
	if err := waitFor(ctx, "the default ServiceAccount of namespace default", 120*time.Second, func() (bool, error) {
		_, err := admin.CoreV1().ServiceAccounts("default").Get(ctx, "default", getOptions)
		return err == nil, err
	}); err != nil {
		return cp, err
	}
	versions := map[string]string{}
	if v, err := admin.Discovery().ServerVersion(); err == nil {
		versions["kube-apiserver"] = v.GitVersion
	}
	r := ready{
		PID:        os.Getpid(),
		Server:     server,
		Kubeconfig: kubeconfigs["admin"],
		AuditLog:   auditLog,
		Nodes:      names,
		Versions:   versions,
		StartedMs:  time.Since(started).Milliseconds(),
	}
	if err := writeReady(stateFile(o, "ready.json"), r); err != nil {
		return cp, err
	}
	log.Printf("ready in %s: %d nodes", time.Since(started).Round(time.Millisecond), len(names))
	return cp, nil
}

// clientComponentFlags are what the controller manager and the scheduler share: their
// kubeconfig for the API and for checking their own callers, a loopback serving port, no
// leader election, and room for pools of hundreds of members (a client's default of 20
// requests/s let the volume binder bind about one claim a second).
func clientComponentFlags(kubeconfig string, port int) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--leader-elect=false",
		"--kube-api-qps=400",
		"--kube-api-burst=800",
		"--profiling=false",
		"--v=1",
	}
}

// run starts one component from the bin folder, its output in logs/<name>.log. The process
// dies with the launcher (Pdeathsig), and a component that exits on its own is reported.
func (cp *controlPlane) run(ctx context.Context, o options, name string, args []string) error {
	logFile, err := os.OpenFile(stateFile(o, "logs", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(o.bin, name), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = o.state
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	c := &component{name: name, cmd: cmd, done: make(chan struct{})}
	cp.procs = append(cp.procs, c)
	log.Printf("%s started (pid %d)", name, cmd.Process.Pid)
	go func() {
		err := cmd.Wait()
		logFile.Close()
		close(c.done)
		if ctx.Err() == nil {
			cp.failed <- fmt.Errorf("%s exited: %v (see logs/%s.log)", name, err, name)
		}
	}()
	return nil
}

// stop ends the components in the reverse order of their start, then etcd.
func (cp *controlPlane) stop() {
	cp.stopOnce.Do(func() {
		cp.cancel()
		for i := len(cp.procs) - 1; i >= 0; i-- {
			c := cp.procs[i]
			_ = c.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-c.done:
			case <-time.After(10 * time.Second):
				_ = c.cmd.Process.Kill()
				<-c.done
			}
		}
		if cp.etcd != nil {
			cp.etcd.Close()
		}
	})
}

func clientFor(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	return kubernetes.NewForConfig(cfg)
}

// The audit policy: every request at Metadata level, once it is complete. Tests read it to
// see what ctpool asked of the server (by its User-Agent).
const auditPolicyYAML = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: None
  users: ["system:kube-controller-manager", "system:kube-scheduler", "kwok-controller", "system:apiserver"]
- level: None
  userGroups: ["system:serviceaccounts:kube-system", "system:nodes"]
- level: Metadata
`

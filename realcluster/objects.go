package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

var getOptions = metav1.GetOptions{}

// kwokNodeAnnotation marks the nodes that kwok keeps (kwok's own convention).
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// storageClassName is the default StorageClass; provisionerName makes its volumes.
const (
	storageClassName = "standard"
	provisionerName  = "ctpool.corral.dev/loopback"
)

// writeKubeconfig writes a kubeconfig with the CA and the client certificate inline, so the
// file still works when copied elsewhere.
func writeKubeconfig(path, server string, ca []byte, kp keyPair, user string) error {
	cert, err := os.ReadFile(kp.Cert)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(kp.Key)
	if err != nil {
		return err
	}
	b64 := base64.StdEncoding.EncodeToString
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: realcluster
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: realcluster
  context:
    cluster: realcluster
    user: %s
current-context: realcluster
`, server, b64(ca), user, b64(cert), b64(key), user)
	return os.WriteFile(path, []byte(text), 0o600)
}

// createNodes registers the fake nodes that kwok keeps Ready, with real capacity so that the
// scheduler places pods by their requests.
func createNodes(ctx context.Context, c *kubernetes.Clientset, names []string, o options) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(o.nodeCPU),
		corev1.ResourceMemory: resource.MustParse(o.nodeMemory),
		corev1.ResourcePods:   resource.MustParse(o.nodePods),
	}
	for _, name := range names {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Annotations: map[string]string{kwokNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
				Labels: map[string]string{
					"kubernetes.io/hostname": name,
					"kubernetes.io/os":       "linux",
					"kubernetes.io/arch":     "amd64",
					"type":                   "kwok",
				},
			},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if _, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", name, err)
		}
	}
	return nil
}

func createStorageClass(ctx context.Context, c *kubernetes.Clientset) error {
	reclaim := corev1.PersistentVolumeReclaimDelete
	binding := storagev1.VolumeBindingImmediate
	sc := &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        storageClassName,
			Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"},
		},
		Provisioner:       provisionerName,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &binding,
	}
	if _, err := c.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create StorageClass %s: %w", storageClassName, err)
	}
	return nil
}

func nodesReady(ctx context.Context, c *kubernetes.Clientset, names []string) (bool, error) {
	for _, name := range names {
		node, err := c.CoreV1().Nodes().Get(ctx, name, getOptions)
		if err != nil {
			return false, err
		}
		ready := false
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			return false, fmt.Errorf("node %s is not Ready yet", name)
		}
	}
	return true, nil
}

package main

// A small dynamic volume provisioner for the default StorageClass: a PersistentVolume (a
// hostPath folder under the state folder; kwok runs no containers, so nothing mounts it) for
// each claim that the controller manager hands to this provisioner, and the volume removed
// once its claim is gone. The controller manager's PV controller does the binding, as on any
// cluster with an external provisioner.

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

const (
	annStorageProvisioner = "volume.kubernetes.io/storage-provisioner"
	annProvisionedBy      = "pv.kubernetes.io/provisioned-by"
)

func runProvisioner(ctx context.Context, c *kubernetes.Clientset, volumes string, failed chan<- error) {
	factory := informers.NewSharedInformerFactory(c, 10*time.Minute)
	pvcs := factory.Core().V1().PersistentVolumeClaims()
	pvs := factory.Core().V1().PersistentVolumes()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(kind string) func(obj any) {
		return func(obj any) {
			if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
				queue.Add(kind + "|" + key)
			}
		}
	}
	handler := func(kind string) cache.ResourceEventHandlerFuncs {
		add := enqueue(kind)
		return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, o any) { add(o) }}
	}
	if _, err := pvcs.Informer().AddEventHandler(handler("pvc")); err != nil {
		failed <- err
		return
	}
	if _, err := pvs.Informer().AddEventHandler(handler("pv")); err != nil {
		failed <- err
		return
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	for {
		item, quit := queue.Get()
		if quit {
			return
		}
		kind, key := splitKey(item)
		var err error
		if kind == "pvc" {
			err = provisionFor(ctx, c, key, volumes)
		} else {
			err = reclaim(ctx, c, pvs.Lister().Get, key, volumes)
		}
		if err != nil && ctx.Err() == nil {
			log.Printf("provisioner: %s %s: %v", kind, key, err)
			queue.AddRateLimited(item)
		} else {
			queue.Forget(item)
		}
		queue.Done(item)
	}
}

func splitKey(item string) (string, string) {
	for i := range len(item) {
		if item[i] == '|' {
			return item[:i], item[i+1:]
		}
	}
	return item, ""
}

// provisionFor makes the volume of one claim that waits for this provisioner (read afresh:
// the informer's copy may predate the PV controller's annotation).
func provisionFor(ctx context.Context, c *kubernetes.Clientset, key, volumes string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pvc, err := c.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, getOptions)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if pvc.Annotations[annStorageProvisioner] != provisionerName || pvc.Spec.VolumeName != "" ||
		pvc.Status.Phase != corev1.ClaimPending || pvc.DeletionTimestamp != nil {
		return nil
	}
	pvName := "pvc-" + string(pvc.UID)
	path := filepath.Join(volumes, pvName)
	if err := os.MkdirAll(path, 0o700); err != nil {
		return err
	}
	hostPathType := corev1.HostPathDirectoryOrCreate
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        pvName,
			Annotations: map[string]string{annProvisionedBy: provisionerName},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              storageClassOf(pvc),
			VolumeMode:                    pvc.Spec.VolumeMode,
			ClaimRef: &corev1.ObjectReference{
				Kind:       "PersistentVolumeClaim",
				APIVersion: "v1",
				Namespace:  pvc.Namespace,
				Name:       pvc.Name,
				UID:        pvc.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &hostPathType},
			},
		},
	}
	_, err = c.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func storageClassOf(pvc *corev1.PersistentVolumeClaim) string {
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return storageClassName
}

// reclaim deletes a volume of this provisioner whose claim is gone (phase Released).
func reclaim(ctx context.Context, c *kubernetes.Clientset, get func(string) (*corev1.PersistentVolume, error), key, volumes string) error {
	pv, err := get(key)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if pv.Annotations[annProvisionedBy] != provisionerName || pv.Status.Phase != corev1.VolumeReleased ||
		pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.DeletionTimestamp != nil {
		return nil
	}
	err = c.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &pv.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return os.RemoveAll(filepath.Join(volumes, pv.Name))
}

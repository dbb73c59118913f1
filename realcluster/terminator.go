package main

// The kubelet's last step of a pod's termination: once a deleted pod's grace period is
// over (its deletionTimestamp), delete it for good, with grace 0 and a UID precondition, as
// the kubelet does. kwok's own pod-delete stage deletes by name alone, so a stale delete of
// an old pod could remove a new pod of the same name (a member made again); this one cannot.
// A pod that was never scheduled has no kubelet: the apiserver removes it at once.

import (
	"context"
	"log"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// podRef names one pod incarnation: a new pod of the same name is another.
type podRef struct {
	namespace, name string
	uid             types.UID
}

func runTerminator(ctx context.Context, c *kubernetes.Clientset, failed chan<- error) {
	factory := informers.NewSharedInformerFactory(c, 10*time.Minute)
	pods := factory.Core().V1().Pods().Informer()
	queue := workqueue.NewTypedDelayingQueue[podRef]()
	consider := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.DeletionTimestamp == nil || pod.Spec.NodeName == "" {
			return
		}
		ref := podRef{pod.Namespace, pod.Name, pod.UID}
		queue.AddAfter(ref, time.Until(pod.DeletionTimestamp.Time))
	}
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    consider,
		UpdateFunc: func(_, o any) { consider(o) },
	}); err != nil {
		failed <- err
		return
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	zero := int64(0)
	for {
		ref, quit := queue.Get()
		if quit {
			return
		}
		uid := ref.uid
		err := c.CoreV1().Pods(ref.namespace).Delete(ctx, ref.name, metav1.DeleteOptions{
			GracePeriodSeconds: &zero,
			Preconditions:      &metav1.Preconditions{UID: &uid},
		})
		// NotFound: already gone; Conflict: the name now holds another pod, not this one's.
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
			log.Printf("terminator: pod %s/%s: %v", ref.namespace, ref.name, err)
			queue.AddAfter(ref, time.Second)
		}
		queue.Done(ref)
	}
}

"""Checks the simulated cluster with the Kubernetes Python client, a client independent of ours.

Usage: python_client.py KUBECONFIG NAMESPACE SCENARIO
Each scenario prints one JSON document on stdout with what it saw; the vitest side asserts
on it. A failure prints a traceback and exits non-zero.
"""

import json
import sys
import time
import warnings

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.stream import stream

# The simulated cluster serves a throwaway self-signed certificate (insecure-skip-tls-verify).
warnings.filterwarnings("ignore")


def configmap(name, data=None, labels=None):
    return client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name=name, labels=labels or {"py": "yes"}),
        data=data,
    )


def sleeping_pod(name, command=None):
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels={"py": "yes"}),
        spec=client.V1PodSpec(
            containers=[
                client.V1Container(
                    name="ct",
                    image="ghcr.io/example/desktop:1",
                    command=command or ["sleep", "infinity"],
                )
            ]
        ),
    )


def wait_running(core, ns, name, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        pod = core.read_namespaced_pod(name, ns)
        if pod.status.phase == "Running":
            return pod
        time.sleep(0.05)
    raise RuntimeError("pod %s did not run" % name)


def scenario_list(core, ns):
    core.create_namespaced_config_map(ns, configmap("py-list-1"))
    core.create_namespaced_config_map(ns, configmap("py-list-2", labels={"py": "other"}))
    every = core.list_namespaced_config_map(ns)
    mine = core.list_namespaced_config_map(ns, label_selector="py=yes")
    return {
        "names": sorted(i.metadata.name for i in every.items),
        "selected": [i.metadata.name for i in mine.items],
        "resourceVersion": mine.metadata.resource_version,
    }


def scenario_watch_resume(core, ns):
    listed = core.list_namespaced_config_map(ns, label_selector="py=watch")
    rv = listed.metadata.resource_version
    core.create_namespaced_config_map(ns, configmap("py-w-1", labels={"py": "watch"}))
    core.patch_namespaced_config_map("py-w-1", ns, {"data": {"k": "v"}})
    core.delete_namespaced_config_map("py-w-1", ns)
    seen = []
    w = watch.Watch()
    for ev in w.stream(
        core.list_namespaced_config_map,
        ns,
        label_selector="py=watch",
        resource_version=rv,
        timeout_seconds=5,
    ):
        seen.append([ev["type"], ev["object"].metadata.name, ev["object"].data])
        if ev["type"] == "DELETED":
            w.stop()
    return {"from": rv, "events": seen, "last": w.resource_version}


def scenario_watch_410(core, ns, old_rv):
    """A watch from a compacted resourceVersion: 410, then a relist and a watch from it."""
    gone = None
    try:
        for _ in watch.Watch().stream(
            core.list_namespaced_config_map, ns, resource_version=old_rv, timeout_seconds=5
        ):
            pass
    except ApiException as e:
        gone = {"status": e.status, "reason": e.reason}
    listed = core.list_namespaced_config_map(ns, label_selector="py=old")
    core.create_namespaced_config_map(ns, configmap("py-after", labels={"py": "old"}))
    seen = []
    w = watch.Watch()
    for ev in w.stream(
        core.list_namespaced_config_map,
        ns,
        label_selector="py=old",
        resource_version=listed.metadata.resource_version,
        timeout_seconds=5,
    ):
        seen.append([ev["type"], ev["object"].metadata.name])
        w.stop()
    return {
        "gone": gone,
        "relisted": sorted(i.metadata.name for i in listed.items),
        "events": seen,
    }


def scenario_crud(core, ns):
    created = core.create_namespaced_config_map(ns, configmap("py-crud", {"a": "1"}))
    read = core.read_namespaced_config_map("py-crud", ns)
    patched = core.patch_namespaced_config_map("py-crud", ns, {"data": {"b": "2"}})
    core.delete_namespaced_config_map("py-crud", ns)
    try:
        core.read_namespaced_config_map("py-crud", ns)
        missing = None
    except ApiException as e:
        missing = {"status": e.status, "message": json.loads(e.body)["message"]}
    try:
        core.create_namespaced_config_map(ns, configmap("Bad_Name"))
        invalid = None
    except ApiException as e:
        invalid = {"status": e.status, "reason": json.loads(e.body)["reason"]}
    core.create_namespaced_pod(ns, sleeping_pod("py-grace"))
    wait_running(core, ns, "py-grace")
    core.delete_namespaced_pod(
        "py-grace", ns, body=client.V1DeleteOptions(grace_period_seconds=600)
    )
    terminating = core.read_namespaced_pod("py-grace", ns)
    core.delete_namespaced_pod("py-grace", ns, grace_period_seconds=0)
    try:
        core.read_namespaced_pod("py-grace", ns)
        after_zero = "still there"
    except ApiException as e:
        after_zero = e.status
    return {
        "createdRv": created.metadata.resource_version,
        "readData": read.data,
        "patchedData": patched.data,
        "missing": missing,
        "invalid": invalid,
        "graceSeconds": terminating.metadata.deletion_grace_period_seconds,
        "terminating": terminating.metadata.deletion_timestamp is not None,
        "afterZero": after_zero,
    }


def scenario_exec(core, ns):
    core.create_namespaced_pod(ns, sleeping_pod("py-exec"))
    wait_running(core, ns, "py-exec")
    out = stream(
        core.connect_get_namespaced_pod_exec,
        "py-exec",
        ns,
        command=["sh", "-c", "echo hello from; hostname"],
        stderr=True,
        stdin=False,
        stdout=True,
        tty=False,
    )
    ws = stream(
        core.connect_get_namespaced_pod_exec,
        "py-exec",
        ns,
        command=["sh", "-c", "echo to-out; echo to-err >&2; exit 3"],
        stderr=True,
        stdin=False,
        stdout=True,
        tty=False,
        _preload_content=False,
    )
    ws.run_forever(timeout=20)
    result = {
        "preloaded": out,
        "stdout": ws.read_stdout(),
        "stderr": ws.read_stderr(),
        "returncode": ws.returncode,
    }
    ws.close()
    return result


def main():
    kubeconfig, ns, name = sys.argv[1], sys.argv[2], sys.argv[3]
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    if name == "watch-410":
        result = scenario_watch_410(core, ns, sys.argv[4])
    else:
        result = {
            "list": scenario_list,
            "watch-resume": scenario_watch_resume,
            "crud": scenario_crud,
            "exec": scenario_exec,
        }[name](core, ns)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

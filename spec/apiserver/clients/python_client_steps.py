"""Drives the embedded API server with the official Kubernetes Python client (Debian's python3-kubernetes).

Usage: python3 python_client_steps.py KUBECONFIG NAMESPACE
Prints one JSON line per step: {"step": name, "ok": bool, "detail": ...}. A failing step prints its error
and the script goes on, so the spec sees every step's outcome at once.
"""
import json
import sys
import traceback

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

KUBECONFIG, NS = sys.argv[1], sys.argv[2]


def step(name):
    def run(fn):
        try:
            detail = fn()
            print(json.dumps({"step": name, "ok": True, "detail": detail}), flush=True)
        except ApiException as e:
            print(json.dumps({"step": name, "ok": False, "detail": {"status": e.status, "body": e.body}}), flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
            print(json.dumps({"step": name, "ok": False, "detail": repr(e), "trace": traceback.format_exc()}), flush=True)
        return fn

    return run


config.load_kube_config(config_file=KUBECONFIG)
api = client.ApiClient()
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)


@step("list-namespaces")
def _():
    return sorted(n.metadata.name for n in core.list_namespace().items)


@step("create-configmap")
def _():
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm"), data={"a": "1"})
    return core.create_namespaced_config_map(NS, body).metadata.name


@step("get-configmap")
def _():
    return core.read_namespaced_config_map("py-cm", NS).data


@step("patch-configmap")
def _():
    # A dict body goes out as a strategic merge patch.
    return core.patch_namespaced_config_map("py-cm", NS, {"data": {"b": "2"}}).data


@step("watch-added-modified")
def _():
    # Written before the watch starts, replayed from resourceVersion: no timing involved.
    since = core.list_namespaced_config_map(NS).metadata.resource_version
    core.create_namespaced_config_map(NS, {"metadata": {"name": "py-watched"}, "data": {"v": "1"}})
    core.patch_namespaced_config_map("py-watched", NS, {"data": {"v": "2"}})
    seen = []
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, NS, resource_version=since, timeout_seconds=10):
        if event["object"].metadata.name == "py-watched":
            seen.append([event["type"], event["object"].data["v"]])
        if len(seen) == 2:
            w.stop()
    return seen


dynamic = DynamicClient(api)
configmaps = dynamic.resources.get(api_version="v1", kind="ConfigMap")
APPLIED_JSON = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py-applied"}, "data": {"a": "json"}})
APPLIED_YAML = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: py-applied\ndata:\n  a: yaml\n  b: block\n"


@step("apply-json")
def _():
    obj = dynamic.server_side_apply(configmaps, body=APPLIED_JSON, name="py-applied", namespace=NS, field_manager="py-json")
    return obj.to_dict()["data"]


@step("apply-yaml-conflict")
def _():
    try:
        dynamic.server_side_apply(configmaps, body=APPLIED_YAML, name="py-applied", namespace=NS, field_manager="py-yaml")
    except ApiException as e:
        return e.status
    return "no conflict"


@step("apply-yaml-force")
def _():
    obj = dynamic.server_side_apply(
        configmaps, body=APPLIED_YAML, name="py-applied", namespace=NS, field_manager="py-yaml", force_conflicts=True
    )
    return obj.to_dict()["data"]


@step("service-port-merge")
def _():
    core.create_namespaced_service(
        NS, {"metadata": {"name": "py-svc"}, "spec": {"selector": {"app": "py"}, "ports": [{"name": "http", "port": 80}]}}
    )
    svc = core.patch_namespaced_service("py-svc", NS, {"spec": {"ports": [{"name": "https", "port": 443}]}})
    return [[p.name, p.port] for p in svc.spec.ports]


@step("create-deployment")
def _():
    labels = {"app": "py-web"}
    body = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-web"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx")]),
            ),
        ),
    )
    apps.create_namespaced_deployment(NS, body)
    got = apps.read_namespaced_deployment("py-web", NS)
    return [got.metadata.name, got.spec.replicas, got.spec.template.spec.containers[0].image]


@step("delete-configmap")
def _():
    core.delete_namespaced_config_map("py-cm", NS)
    try:
        core.read_namespaced_config_map("py-cm", NS)
    except ApiException as e:
        return e.status
    return "still there"


@step("delete-foreground")
def _():
    core.delete_namespaced_config_map("py-watched", NS, body=client.V1DeleteOptions(propagation_policy="Foreground"))
    meta = core.read_namespaced_config_map("py-watched", NS).metadata
    return [meta.finalizers, meta.deletion_timestamp is not None]

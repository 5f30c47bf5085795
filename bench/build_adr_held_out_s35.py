"""Build bench/data/public_links/adr_projects_s35.json: session 35's held-out decision records for the update links.

    python bench/build_adr_held_out_s35.py          # writes the file (deterministic: same input, same bytes)

This file IS the transcription: the records below were typed from the public repositories named per project
(files and commits per record), the way adr_projects.json and adr_projects_more.json were (see
bench/data/public_links/README.md, section "Held out, session 35"):

* one memory per record: its number and title, and where the record was read its decision in the authors'
  words, trimmed to a sentence or two; where it was not read, its title alone (from the file name or the
  repository's index). konflux: where a record was not read, its decision is the one-line summary the
  repository's own ADR/INDEX.md gives for it.
* `updates` are the pairs the authors marked: the older record's status "Superseded by" the newer (or an index
  that says so), or the newer saying it supersedes, replaces, reverts or revisits the older. A few are pairs
  whose newer record states the new state of the older one's subject without citing it ("migrate away from
  Algolia" after "continue to use Algolia"): those are listed again in `updates_unnamed`, the realistic case
  where nothing shares a number or a title.
* `ambiguous`: an amendment the authors marked as one, a partial replacement, or a restatement of the same
  state -- counted neither way.
* `reports`: sentences of a record's context that report on a subject (a failure, a problem seen, a cost),
  dated the day before the record that cites them. A report never supersedes anything.
* dates: the records' own where they have one; otherwise placed by number between the dates the records of
  the same repository give (linear in the number; `ANCHORS` per project), so the order is the authors'.

Every other link is wrong. Nothing here was run through the linker before the file was committed: the whole
file is held out (split `held-out-s35`), run once by the lead, never tuned on.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "public_links" / "adr_projects_s35.json"
SPLIT = "held-out-s35"


def placed(anchors: dict[int, str], number: int) -> str:
    """The date of record `number`, linear between the two anchors around it (the records' own dates)."""
    points = sorted((n, date.fromisoformat(d)) for n, d in anchors.items())
    if number <= points[0][0]:
        return (points[0][1] - timedelta(days=7 * (points[0][0] - number))).isoformat()
    for (n0, d0), (n1, d1) in zip(points, points[1:]):
        if n0 <= number <= n1:
            return (d0 + timedelta(days=round((d1 - d0).days * (number - n0) / (n1 - n0)))).isoformat()
    return (points[-1][1] + timedelta(days=7 * (number - points[-1][0]))).isoformat()


def before(day: str) -> str:
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def project(name, repo, licence, licence_verified, source, anchors, records, reports, updates,
            unnamed=(), ambiguous=()):
    """records: (id, number or None, date or None, text, file, commit); reports: (id, cites, text, file, commit)."""
    memories = []
    for rid, number, day, text, file, commit in records:
        day = day or placed(anchors, number)
        memories.append({"id": rid, "date": day, "text": text, "file": file, "commit": commit})
    dated = {m["id"]: m["date"] for m in memories}
    for rid, cites, text, file, commit in reports:
        memories.append({"id": rid, "date": before(dated[cites]), "text": text, "file": file, "commit": commit})
    memories.sort(key=lambda m: (m["date"], m["id"]))
    return {"name": name, "split": SPLIT, "repo": repo, "licence": licence, "licence_verified": licence_verified,
            "source": source, "memories": memories, "updates": [list(p) for p in updates],
            "updates_unnamed": [list(p) for p in unnamed], "ambiguous": [list(p) for p in ambiguous],
            "reports": [r[0] for r in reports]}


# --- alphagov/paas-team-manual ------------------------------------------------------------------------------
PAAS_DIR = "source/architecture_decision_records/"
PAAS_LIST = "7f7d3bacae11286e7443cf77df623ea9cea6f538"  # the listing's commit for the titles not read
PAAS_TITLES = {
    1: "Manifest management", 2: "Concourse pool resource", 3: "AWS credentials", 4: "Domain naming scheme",
    6: "RDS broker", 7: "Terminating TLS at ELBs", 9: "X-Forwarded headers", 10: "Postgres bind behaviour",
    11: "Security group structure", 13: "Building BOSH releases", 18: "RDS broker restore last operation",
    19: "Accessing user provided services", 20: "Deletion of CI environment", 23: "Idle CPU alerting change",
    25: "Service plan naming conventions", 28: "Move logs to Logit", 29: "Aiven project structure",
    31: "Services core pipeline separate jobs", 32: "SSL only for applications and CF endpoints",
    34: "Continuously deploy platform CF apps", 37: "Automated certificate rotation", 38: "Audit logs in Splunk",
    39: "Aiven metrics for users", 42: "Isolation segments", 45: "AWS WAF", 47: "Postgres extensions approach",
    48: "Add resources table", 49: "Calculate bills", 51: "cflinuxfs3 to cflinuxfs4 migration",
    52: "Buildpack upgrade PRs", 53: "PaaS product pages Ireland",
}
PAAS_FILES = {
    1: "ADR001-manifest-management", 2: "ADR002-concourse-pool-resource", 3: "ADR003-AWS-credentials",
    4: "ADR004-domain-naming-scheme", 6: "ADR006-rds-broker", 7: "ADR007-terminating-tls-at-elbs",
    9: "ADR009-x-forwarded-headers", 10: "ADR010-postgres-bind-behaviour", 11: "ADR011-security-group-structure",
    13: "ADR013-building-bosh-releases", 18: "ADR018-rds-broker-restore-last-operation",
    19: "ADR019-accessing-user-provided-services", 20: "ADR020-deletion_of_ci_environment",
    23: "ADR023-idle-cpu-alerting-change", 25: "ADR025-service-plan-naming-conventions",
    28: "ADR028-move-logs-to-logit", 29: "ADR029-aiven-project-structure",
    31: "ADR031-services-core-pipeline-separate-jobs", 32: "ADR032-ssl-only-for-applications-and-cf-endpoints",
    34: "ADR034-continuously-deploy-platform-cf-apps", 37: "ADR037-automated-certificate-rotation",
    38: "ADR038-audit-logs-in-splunk", 39: "ADR039-aiven-metrics-for-users", 42: "ADR042-isolation-segments",
    45: "ADR045-aws-waf", 47: "ADR047-postgres-extensions-approach", 48: "ADR048-add-resources-table",
    49: "ADR049-calculate-bills", 51: "ADR051-cflinuxfs3-to-cflinuxfs4-migration",
    52: "ADR052-buildpack-upgrade-prs", 53: "ADR053-paas-product-pages-ireland",
}
PAAS_READ = [  # (number, text, file stem, commit read)
    (5, "Pingdom healthchecks: we will make the staging environment accessible to the outside world as well as "
        "production, and remove the CI Pingdom check and the security groups allowing Pingdom probes.",
     "ADR005-pingdom-healthchecks", "7f7d3bacae11286e7443cf77df623ea9cea6f538"),
    (8, "Haproxy for request rewriting: we will implement HAProxy in front of the gorouter, colocated with it, "
        "doing SSL termination and serving HSTS headers.",
     "ADR008-haproxy-for-request-rewriting", "ad3dc5fa58eed0f145a6353efe04720337fa3790"),
    (12, "Haproxy healthcheck: implement a healthchecking port 82 in the HAProxy we introduced in ADR008, which "
         "appends the User-Agent gorouter expects, and enable HTTP healthchecks on the ELB.",
     "ADR012-haproxy-healthcheck", "ad3dc5fa58eed0f145a6353efe04720337fa3790"),
    (14, "HSTS preload using api gateway: we will implement a basic AWS API Gateway with a MOCK response that "
         "returns the Strict-Transport-Security header, served from the apex domain through Route 53 ALIAS "
         "records.", "ADR014-hsts-preload-using-api-gateway", "47f245e621a644a4851efdf340a495645fa8e0ae"),
    (15, "RDS storage encryption plans: provide additional explicit plans with encryption enabled and keep the old "
         "ones; the option of encryption is added to the HA plans only.",
     "ADR015-rds-storage-encryption-plans", "2898491c3f8427e95bdc40c25dc3819c11793d55"),
    (16, "End-to-end encryption: TLS from the user to the ELB and from the ELB to the router; router to application "
         "instances is plain HTTP, so we use IPSec on router and cell to encrypt it transparently.",
     "ADR016-end-to-end-encryption", "ad3dc5fa58eed0f145a6353efe04720337fa3790"),
    (17, "Cell capacity assignment: we will maintain at least 50% of total org reserved capacity available when a "
         "zone fails.", "ADR017-cell-capacity-assignment", "075ab159ec937b0d8d07f5cbee2b664d7f1280b8"),
    (21, "Cell capacity assignment 2: base capacity planning on the memory occupied by processes on cells rather "
         "than the sum of all quotas; alert when smoothed memory used on cells is above 50%.",
     "ADR021-cell-capacity-assignment-2", "867864990de4efebc5754f506614b85dbc6f2c15"),
    (22, "Web app language and framework selection: we will use Ruby and Rails to create new user-facing "
         "applications with web frontends.",
     "ADR022-web_app_language_and_framework_selection", "075ab159ec937b0d8d07f5cbee2b664d7f1280b8"),
    (24, "Web app language and framework selection: we will use Node to create new user-facing applications that "
         "render a web interface for our service.",
     "ADR024-web-app-language-and-framework-selection-2", "075ab159ec937b0d8d07f5cbee2b664d7f1280b8"),
    (26, "DNS layout for UK hosting: London hosting uses (system_component).london.(system_domain) and "
         "(app_name).london.(app_domain).", "ADR026-DNS-layout-for-UK-hosting",
     "8a3de3d4857c9f3c352e65bbe99230737ece22a0"),
    (27, "Pipeline locking: we implement locking of our Concourse pipelines with the Concourse pool resource, AWS "
         "CodeCommit and Terraform.", "ADR027-pipeline-locking", "075ab159ec937b0d8d07f5cbee2b664d7f1280b8"),
    (30, "Single staging environment in London: we will remove the Ireland (eu-west-1) staging environment, "
         "leaving a single staging environment in AWS London (eu-west-2).",
     "ADR030-single-staging-london", "3d8dc181c5816becefe141ee896d39dcd5e39121"),
    (33, "Redirect HTTP for applications: we will redirect http traffic to the corresponding root https endpoint, "
         "and keep HSTS preload lists for our production domains.",
     "ADR033-redirect-http-for-applications", "47f245e621a644a4851efdf340a495645fa8e0ae"),
    (35, "Do not use HAProxy; use AWS ALBs: replace ELBs with ALBs, use ALB fixed-response to redirect HTTP to "
         "HTTPS, use Gorouter directly for TLS termination, HSTS headers and healthchecking, and remove HAProxy.",
     "ADR035-do-not-use-haproxy-use-aws-alb", "47f245e621a644a4851efdf340a495645fa8e0ae"),
    (36, "Recommended database plans: create new plans for postgres 11 and mysql 8 on t3/m5 instances with 100G "
         "small plans, add small high-IOPS plans, and do not change the instance types of existing plans.",
     "ADR036-add-new-rds-broker-plans", "47f245e621a644a4851efdf340a495645fa8e0ae"),
    (40, "BOSH access without SOCKS5 or SSH: remove the reliance on SOCKS5 or SSH tunnels for the UAA endpoint and "
         "obtain UAA tokens through Google single sign-on, keeping the IP allow lists.",
     "ADR040-bosh-access-without-socks", "7f7d3bacae11286e7443cf77df623ea9cea6f538"),
    (41, "BOSH access with mTLS: remove the reliance on IP allow lists for all services on the BOSH instance; the "
         "IP allow lists will be replaced with mutual TLS.",
     "ADR041-bosh-access-with-mtls", "4b7cf0c4343e308d3fc60e65ca9deec287b44b42"),
    (43, "New product pages language and framework: we will use NextJS with MDX to author the PaaS product pages in "
         "Markdown and deliver them as static pages.",
     "ADR043-new-product-pages-language-and-framework", "7f7d3bacae11286e7443cf77df623ea9cea6f538"),
    (44, "Remove IPSec: we will not run IPSec in our BOSH deployments; end-to-end encryption between gorouter and "
         "apps is done solely by mTLS.", "ADR044-remove-ipsec", "8800eadf57a8a6796c3f06a80b4cfc71b0ba7dce"),
    (46, "Postgres service plans: fix the inconsistencies of the Postgres plan menu (upgrade paths, disk sizes) by "
         "replacing plans: the old plan is renamed -deprecated, made private, and a new one takes its name.",
     "ADR046-postgres-plans", "80d5c1d05cfb697035ac38e0e757298951aa8a42"),
    (50, "Plans for the cloudapps.digital domain post platform retirement: the domain is not offered as an ongoing "
         "service; it is transferred to GOV.UK 2nd Line to be kept on retention.",
     "ADR050-cloudapps-digital-domain", "90b4623e9cfafc2c5599e579bf21e272e92e263e"),
]
PAAS_EXT = {46: ".md"}  # ADR046 is read from its .md copy; every other record is .html.md


def paas():
    records = [(f"p{n:03d}", n, None, f"ADR{n:03d}: {t}.", PAAS_DIR + PAAS_FILES[n] + ".html.md", PAAS_LIST)
               for n, t in PAAS_TITLES.items()]
    records += [(f"p{n:03d}", n, None, f"ADR{n:03d}: {t}", PAAS_DIR + f + PAAS_EXT.get(n, ".html.md"), c)
                for n, t, f, c in PAAS_READ]
    f = PAAS_DIR
    reports = [
        ("r_p021", "p021", "Cell capacity: we haven't ever run out of cell capacity, but we've observed that there's "
                           "excess capacity that we're paying for.",
         f + "ADR021-cell-capacity-assignment-2.html.md", "867864990de4efebc5754f506614b85dbc6f2c15"),
        ("r_p022", "p022", "We've previously used Sinatra for web apps, but ran into issues with its default "
                           "configuration, which isn't secure, leading to an XSS vulnerability.",
         f + "ADR022-web_app_language_and_framework_selection.html.md", "075ab159ec937b0d8d07f5cbee2b664d7f1280b8"),
        ("r_p033", "p033", "HTTPS only for applications: we've observed this causing confusion for users on numerous "
                           "occasions, where they think their app isn't working after being pushed.",
         f + "ADR033-redirect-http-for-applications.html.md", "47f245e621a644a4851efdf340a495645fa8e0ae"),
        ("r_p035a", "p035", "Classic ELBs are deprecated in terraform and cause crashes.",
         f + "ADR035-do-not-use-haproxy-use-aws-alb.html.md", "47f245e621a644a4851efdf340a495645fa8e0ae"),
        ("r_p035b", "p035", "HAProxy duplicates the number of logs we receive, because every platform request is "
                            "written twice, and adds an extra network hop for every request.",
         f + "ADR035-do-not-use-haproxy-use-aws-alb.html.md", "47f245e621a644a4851efdf340a495645fa8e0ae"),
        ("r_p036", "p036", "There was some evidence in the form of support tickets that our current small database "
                           "plans don't have enough IOPS, causing people to prematurely upgrade to mediums.",
         f + "ADR036-add-new-rds-broker-plans.html.md", "47f245e621a644a4851efdf340a495645fa8e0ae"),
        ("r_p044", "p044", "The cf-dev mailing list alleges that the IPSec release is no longer maintained.",
         f + "ADR044-remove-ipsec.html.md", "8800eadf57a8a6796c3f06a80b4cfc71b0ba7dce"),
        ("r_p050", "p050", "We are aware that some tenants have used the cloudapps.digital domain for non development "
                           "purposes.", f + "ADR050-cloudapps-digital-domain.html.md",
         "90b4623e9cfafc2c5599e579bf21e272e92e263e"),
    ]
    return project(
        "paas-team-manual", "alphagov/paas-team-manual",
        "MIT (the Government Digital Service releases its code under the MIT licence unless stated otherwise; the "
        "repository's licence file was not in the stored copy read and its README states none)", False,
        PAAS_DIR + "ADR001-053 (one file per record; the ADR443-454 copies of renumbered records left out)",
        # ADR017 ran from February 2017 (ADR021), ADR021 is of November 2017, ADR022 was superseded by ADR024 in
        # February 2018, ADR036 describes the plans "as of 2019-09-03"; the platform was retired in 2023.
        {1: "2016-01-15", 17: "2017-02-15", 21: "2017-11-01", 24: "2018-02-01", 36: "2019-09-03",
         53: "2023-06-01"},
        records, reports,
        updates=[("p017", "p021"), ("p022", "p024"), ("p008", "p035"), ("p012", "p035"), ("p032", "p033")],
        # ADR035 names "ADR008 and ADR014" as the HAProxy decisions and removes the HAProxy healthcheck that
        # ADR012 decided; ADR014 decided an API Gateway, not HAProxy.
        unnamed=[("p012", "p035")],
        ambiguous=[("p014", "p035"), ("p040", "p041"), ("p016", "p044"), ("p021", "p023")])


# --- konflux-ci/architecture ---------------------------------------------------------------------------------
KX_INDEX = "ADR/INDEX.md (the repository's index of its records, a stored version of 17,793 characters)"
KONFLUX = [  # (number, key, title: decision, file, commit) -- commit "" = the index's summary, not the record
    (1, "k0001", "Pipeline Service Phase 1: Tekton APIs and services will be provided through a separate, "
                 "independent service - Pipeline Service; App Studio and HACBS will be customer 0.",
     "ADR/0001-pipeline-service-phase-1.md", "865da558a0ae6a908f4ae5b21d3ee3f9b43bb048"),
    (2, "k0002", "Feature Flags: use API discovery to control the enablement of individual features in individual "
                 "workspaces.", "ADR/0002-feature-flags.md", "24b871dfdda62e1ee675a46196a24a87c148d25b"),
    (3, "k0003", "Interacting with Internal Services: use a controller running in a private cluster to watch and "
                 "reconcile Request custom resources in workspaces.",
     "ADR/0003-interacting-with-internal-services.md", ""),
    (4, "k0004", "Out-of-the-box image repository for StoneSoup users: per workspace a new Quay.io org, per component "
                 "a new repo within that org, with robot account tokens for image push.",
     "ADR/0004-component-image-location.md", ""),
    (6, "k0006", "Log Conventions: controller logs will use structured log messages formatted in JSON with key-value "
                 "pairs.", "ADR/0006-log-conventions.md", ""),
    (7, "k0007", "Change Management Process: incremental code changes fully tested by automated tests follow the "
                 "normal code review process; deployments require changes to infra-deployments or App Interface.",
     "ADR/0007-change-management.md", ""),
    (8, "k0008", "Environment Provisioning: split the two purposes of the Environment CR; for provisioning a new "
                 "deployment target we introduce new DeploymentTarget and DeploymentTargetClaim APIs.",
     "ADR/0008-environment-provisioning.md", "d9021978df1b31ea88012a8f3600a2757b1ba52f"),
    (9, "k0009", "Pipeline Service via Operator: all Tekton APIs will be provided using the stock OpenShift "
                 "Pipelines operator, with candidate nightly releases deployed in a service-first manner.",
     "ADR/0009-pipeline-service-via-operator.md", ""),
    (10, "k0010", "Namespace Metadata: apply standardized labels for namespace types, billing and operators, plus "
                  "annotations to enable OVN network logging.", "ADR/0010-namespace-metadata.md", ""),
    (11, "k0011", "Roles and Permissions for Konflux: use the built-in Kubernetes RBAC system with four roles "
                  "(Viewer, Contributor, Maintainer, Admin).", "ADR/0011-roles-and-permissions.md", ""),
    (12, "k0012", "Namespace Name Format: every namespace for a top-level workspace uses the format "
                  "<workspace-name>-tenant.", "ADR/0012-namespace-name-format.md", ""),
    (13, "k0013", "Konflux Test Stream - API contracts: Tekton task output is provided as minimized Task Results in "
                  "JSON (HACBS_TEST_OUTPUT and CLAIR_SCAN_RESULT) and a full test output JSON.",
     "ADR/0013-integration-service-api-contracts.md", ""),
    (14, "k0014", "Let Pipelines Proceed: all scanning and linting TaskRuns should succeed even if they find "
                  "problems, exposing results through the TEST_OUTPUT result convention.",
     "ADR/0014-let-pipelines-proceed.md", ""),
    (15, "k0015", "The Two-phase Architecture of the Integration Service: a Component phase and an optional "
                  "Composite phase protect against race conditions when testing component builds.",
     "ADR/0015-integration-service-two-phase-architecture.md", ""),
    (16, "k0016", "Promotion logic in the Integration Service: the integration service updates the Global Candidate "
                  "List with component images once tests pass, and Releases are associated with passing Snapshots.",
     "ADR/0016-integration-service-promotion-logic.md", ""),
    (17, "k0017", "Use our own pipelines to build and scan Konflux components.", "ADR/0017-use-our-pipelines.md", ""),
    (18, "k0018", "Continuous Performance Testing of Apps: a single Horreum instance per control plane cluster, with "
                  "pipelines uploading JSON test data to Horreum.", "ADR/0018-apps-continuous-perf-testing.md", ""),
    (19, "k0019", "Customize URLs Sent to GitHub: PipelineRun result links sent to GitHub must be URLs accessible to "
                  "registered users allowed to view the PipelineRun.", "ADR/0019-customize-url-github.md", ""),
    (20, "k0020", "Source Retention: source history of branches used to build Konflux components must not be "
                  "overwritten or deleted; branch protection prohibits force pushing and branch deletion.",
     "ADR/0020-source-retention.md", ""),
    (21, "k0021", "Partner Tasks in Build/Test Pipelines: a new directory in build-definitions for partners to "
                  "contribute Tasks, with CI validation.", "ADR/0021-partner-tasks.md", ""),
    (22, "k0022", "Secret Management For User Workloads: a RemoteSecret CRD links SecretData in permanent "
                  "SecretStorage with DeploymentTargets and Kubernetes Secrets.",
     "ADR/0022-secret-mgmt-for-user-workloads.md", ""),
    (23, "k0023", "Git references to furnish Integration Test Scenarios: a new IntegrationTestScenario CRD supports "
                  "Tekton resolvers (bundles, cluster, hub, git).",
     "ADR/0023-git-references-to-furnish-integration-test-scenarios.md", ""),
    (24, "k0024", "Release Objects Attribution Tracking and Propagation: an admission webhook captures and tracks "
                  "user information from Kubernetes requests.", "ADR/0024-release-attribution.md", ""),
    (25, "k0025", "appstudio-pipeline Service Account: Konflux provides a service account named appstudio-pipeline.",
     "ADR/0025-appstudio-pipeline-serviceaccount.md", ""),
    (26, "k0026", "Specifying OCP targets for File-based Catalogs: FBC components are built from OCP-specific parent "
                  "images carrying the target version.", "ADR/0026-specifying-ocp-targets-for-fbc.md", ""),
    (27, "k0027a", "Availability Probe Framework: probes' availability is provided as Prometheus metrics computed from "
                   "CronJob exit status.", "ADR/0027-availability-probe-framework.md", ""),
    (27, "k0027b", "Container Image Management Practice: component teams are responsible for onboarding to the PaC "
                   "service for continuous builds, scans, vulnerability patching and image updates.",
     "ADR/0027-container-images.md", ""),
    (28, "k0028", "Handling SnapshotEnvironmentBinding Errors: the integration service considers SEBs with a true "
                  "ErrorOccured condition last updated more than five minutes ago unrecoverable and cleans them up.",
     "ADR/0028-handling-snapshotenvironmentbinding-errors.md", "116d4712c9630a5ff41c270d76c3a551012dfa06"),
    (29, "k0029", "Component Dependencies: a build-nudges-ref field on Component declares dependencies forming a DAG.",
     "ADR/0029-component-dependencies.md", ""),
    (30, "k0030", "Tekton Results Naming Convention: pipeline tasks must succeed even when finding problems; two "
                  "result formats are defined, for test-like and scan-like tasks.",
     "ADR/0030-tekton-results-naming-convention.md", ""),
    (31, "k0031", "Sprayproxy: a service validates incoming GitHub webhook requests and forwards them to all backend "
                  "clusters.", "ADR/0031-sprayproxy.md", ""),
    (32, "k0032", "Decoupling Deployment: deprecate Environment, SnapshotEnvironmentBinding and "
                  "GitOpsDeploymentManagedEnvironment, stop deploying with the gitops-service, and promote "
                  "renovatebot/dependabot for propagating releases to self-managed gitops repos.",
     "ADR/0032-decoupling-deployment.md", ""),
    (33, "k0033", "Enable Native OpenTelemetry Tracing: use Tekton's OpenTelemetry support with an OpenTelemetry "
                  "Collector.", "ADR/0033-enable-native-opentelemetry-tracing.md", ""),
    (34, "k0034", "Project Controller for Multi-version support: new Project and ProjectDevelopmentStream resources.",
     "ADR/0034-project-controller-for-multiversion.md", ""),
    (35, "k0035a", "Continuous Chaos Testing of Apps: users can use the Krkn chaos testing framework within "
                   "IntegrationTestScenarios, on ephemeral clusters.", "ADR/0035-apps-continuous-chaos-testing.md", ""),
    (35, "k0035b", "Provisioning Clusters for Integration Tests: use the CaaS Operator to provision OpenShift clusters "
                   "via ClusterTemplateInstances created by Tekton tasks, preferring Hypershift templates.",
     "ADR/0035-provisioning-ephemeral-openshift-clusters.md", ""),
    (36, "k0036", "Trusted Artifacts: sharing files between Tasks is done via Trusted Artifacts backed by OCI storage.",
     "ADR/0036-trusted-artifacts.md", ""),
    (37, "k0037", "Integration service promotes components to GCL immediately after builds complete, instead of "
                  "waiting for tests to pass; Releases are still only created for Snapshots passing required tests.",
     "ADR/0037-integration-service-promotes-to-GCL-immediately.md", ""),
    (38, "k0038", "Integration service removes composite snapshots: override snapshots, created manually by users, "
                  "replace composite snapshots and update the GCL for their components if tests pass.",
     "ADR/0038-integration-service-composite-removal.md", ""),
    (39, "k0039", "Workspace Deprecation: remove the Workspace abstraction and use standard Kubernetes namespaces "
                  "directly.", "ADR/0039-workspace-deprecation.md", ""),
    (41, "k0041", "Konflux should send cloud events for all system events.", "ADR/0041-send-cloud-events.md", ""),
    (44, "k0044", "SPDX SBOM support: Tekton tasks implement an sbomType attribute for the expected SBOM format.",
     "ADR/0044-spdx-support.md", ""),
    (46, "k0046", "Build a common Task Runner image with all commonly needed tools, released via Konflux.",
     "ADR/0046-common-task-runner-image.md", ""),
    (47, "k0047", "Caching for container base images used during builds: Squid HTTP proxies deployed via a Helm chart.",
     "ADR/0047-caching-for-container-build-layers.md", ""),
    (48, "k0048", "Attestable Build-Time Tests in Integration Service: test pipelines generate task-specific "
                  "attestations.", "ADR/0048-movable-build-tests.md", ""),
    (49, "k0049", "Verification Summary Attestations for Release Policies: adopt SLSA VSAs to record SDL policy check "
                  "results.", "ADR/0049-vsa-support.md", ""),
    (50, "k0050", "Exclude the Kubernetes events API from all Konflux user RBAC roles.",
     "ADR/0050-exclude-events-api-from-user-rbac.md", ""),
    (51, "k0051", "KITE Architecture and Components: a Bridge Operator watches PipelineRuns and reports failures to a "
                  "backend service.", "ADR/0051-kite-poc-architecture-and-components.md", ""),
    (52, "k0052", "GitOps Onboarding Redesign: converge UI and GitOps into a single Git-centric onboarding flow.",
     "ADR/0052-gitops-onboarding-redesign.md", ""),
    (53, "k0053", "Trusted Tasks model after build-definitions decentralization: a rule-based model, trusted_task_rules.",
     "ADR/0053-trusted-task-model.md", ""),
    (54, "k0054", "Start versioning Tekton Tasks responsibly, following Semantic Versioning.",
     "ADR/0054-task-versioning.md", ""),
    (55, "k0055", "SLSA Source Provenance Verification through chained attestations.",
     "ADR/0055-slsa-source-provenance-verification.md", ""),
]


def konflux():
    own = {"k0001": "2022-10-13", "k0002": "2022-06-01", "k0008": "2022-12-14", "k0028": "2023-08-31"}
    records = [(key, n, own.get(key), f"ADR {n}: {text}", file, commit or KX_INDEX)
               for n, key, text, file, commit in KONFLUX]
    reports = [
        ("r_k0001", "k0001", "Tekton code utilizes libraries that are not simple to refactor and make kcp aware.",
         "ADR/0001-pipeline-service-phase-1.md", "865da558a0ae6a908f4ae5b21d3ee3f9b43bb048"),
        ("r_k0002", "k0002", "Workspaces don't have a type useful for anything beyond initialization, and they're not "
                             "going to have one.", "ADR/0002-feature-flags.md",
         "24b871dfdda62e1ee675a46196a24a87c148d25b"),
        ("r_k0028", "k0028", "It is currently not possible to determine whether a SnapshotEnvironmentBinding is stuck "
                             "in an unrecoverable state; being unable to clean up errored SEBs can overload the cluster.",
         "ADR/0028-handling-snapshotenvironmentbinding-errors.md", "116d4712c9630a5ff41c270d76c3a551012dfa06"),
    ]
    return project(
        "konflux", "konflux-ci/architecture",
        "Apache-2.0 as published for konflux-ci projects (NOT verified: the licence file was not in the stored copy "
        "read -- check on the repository before reuse; drop the project if it is not)", False,
        "ADR/*.md: 0001, 0002, 0008, 0028 read; every other record's decision as summarised by ADR/INDEX.md; the "
        "statuses (Superseded by / Supersedes / Deprecated by) from ADR/INDEX.md and the records read",
        # the records' own dates: 0002 (2022-06-01), 0001 (2022-10-13), 0008 (2022-12-14), 0016 (documented
        # 2023-02-08), 0028 (2023-08-31), 0035 provisioning (2024-02-14), KITE (2025-09-08)
        {2: "2022-06-01", 8: "2022-12-14", 16: "2023-02-08", 28: "2023-08-31", 35: "2024-02-14",
         51: "2025-09-08", 55: "2025-11-15"},
        records, reports,
        updates=[("k0001", "k0009"), ("k0008", "k0032"), ("k0008", "k0035b"), ("k0013", "k0030"),
                 ("k0015", "k0037"), ("k0016", "k0032"), ("k0016", "k0037"), ("k0028", "k0032"),
                 ("k0031", "k0039"), ("k0037", "k0038")],
        # 0035 supersedes "the environment provisioning parts" of 0032 only
        ambiguous=[("k0032", "k0035b")])


# --- DFE-Digital/teaching-vacancies --------------------------------------------------------------------------
def teaching_vacancies():
    d = "documentation/adr/"
    titles = {1: ("Get postcode from coordinates", "0001_get_postcode_from_coordinates",
                  "d024725424dfa11a115002ff77d8873ab2666175"),
              2: ("Replace Google Sheets with BigQuery", "0002_replace_google_sheets_with_big_query",
                  "4779750d29b4354ccba790d075c265795d07d48f"),
              3: ("Replace gitflow with a simple git workflow", "0003_replace_gitflow_with_simple_git_workflow",
                  "d5d6bd6fc10186f2a54db079fa3826ecd0e2e334"),
              4: ("Define environments after the GOV.UK PaaS migration",
                  "0004_define_environments_after_gov_uk_paas_migration", "ba0da80a9a7d3b25254141d52473274aa32782cf"),
              6: ("Using buildpacks on PaaS", "0006_using_buildpacks_on_paas", "679e8198619dd06d0d156ead73ae2f4a723d4e8b"),
              7: ("Use Devise for authentication", "0007_use_devise_for_authentication",
                  "9cbe531569a7d3856a9551eb41c9984f1036df26"),
              9: ("Build job applications rather than buy COTS", "0009_build_job_applications_rather_than_buy_cots",
                  "5b6a1b331a093c268c3f5bbf89015c7a96a64d8b"),
              11: ("Use devcontainers", "0011_use_devcontainers", "6f131e5daade2919722699574eff773cadc5a18c"),
              12: ("Use Mermaid for diagrams", "0012_use_mermaid_for_diagrams", "d5607a48c062e4795a2c117d1009ffd88369ce86"),
              13: ("Generate jobseeker PDFs from HTML in the browser",
                   "0013_generate_jobseeker_pdfs_from_html_in_the_browser", "d312eba17f9f8cd38554b07826d72ad4b61c381b"),
              14: ("Replace Sidekiq with Solid Queue", "0014_replace_sidekiq_with_solid_queue",
                   "7138f61d63d42ad7fb7bb2e6096b42fc6747dc22"),
              15: ("Replace Redis cache with Solid Cache", "0015_replace_redis_cache_with_solid_cache",
                   "5e63b751afa5e077c3e8f38da302269ad3bf6190")}
    records = [(f"t{n:02d}", n, None, f"ADR {n}: {t}.", d + f + ".md", c) for n, (t, f, c) in titles.items()]
    records += [
        ("t05", 5, "2020-04-08", "ADR 5: Switch from ElasticSearch to Algolia for search functionality: Algolia has "
         "easier out-of-the-box functionality yielding better search results, and is up to 200x faster than ES.",
         d + "0005_elasticsearch_to_algolia_migration.md", "1035488db8cabe6b69c9bf51c55573f641b2567b"),
        ("t08", 8, "2020-11-16", "ADR 8: Continue to use Algolia as search engine: Teaching Vacancies should continue "
         "to use the Algolia standard plan, and not revert back to using Elastic Search.",
         d + "0008_continue_to_use_Algolia_as_search_engine.md", "e246a94e5406596091a1d6dcfe5fe2cf2c2439b2"),
        ("t10", 10, "2021-09-22", "ADR 10: Migrate from Algolia to Postgres-based search: we decided to migrate away "
         "from Algolia and move to using our database for search functionality.",
         d + "0010_migrate_from_algolia_to_postgres.md", "ce75c3d54e8e458b29c1d6a6c3e6f4c6fe7c87f7"),
    ]
    reports = [
        ("r_t05", "t05", "Current search has been identified as not giving optimal search results, and job alerts are "
                         "based on very simplistic search rules.", d + "0005_elasticsearch_to_algolia_migration.md",
         "1035488db8cabe6b69c9bf51c55573f641b2567b"),
        ("r_t08", "t08", "Algolia has not been adopted by any other teams within DfE, which hinders knowledge sharing "
                         "across services.", d + "0008_continue_to_use_Algolia_as_search_engine.md",
         "e246a94e5406596091a1d6dcfe5fe2cf2c2439b2"),
    ]
    return project(
        "teaching-vacancies", "DFE-Digital/teaching-vacancies", "MIT (LICENSE at d46fd137, Department for Education)",
        True, d + "*.md: 0005, 0008, 0010 read; titles of the others from their file names",
        {1: "2019-06-01", 5: "2020-04-08", 8: "2020-11-16", 10: "2021-09-22", 15: "2024-10-01"},
        records, reports,
        # ADR 10 does not cite ADR 5 or 8; its decision ("migrate away from Algolia") replaces both
        updates=[("t05", "t10"), ("t08", "t10")], unnamed=[("t05", "t10"), ("t08", "t10")],
        ambiguous=[("t05", "t08")])  # ADR 8 restates ADR 5's state ("continue to use Algolia")


# --- alphagov/email-alert-api --------------------------------------------------------------------------------
def email_alert_api():
    d = "docs/adr/"
    records = [
        ("e003", 3, "2018-02-15", "ADR 3: Initial data retention strategy: emails are archived within 24 hours and "
         "deleted after 14 days; subscribers, subscriptions, subscriber lists and content changes should not be "
         "deleted, as part of the analytics picture.", d + "adr-003-data-retention.md",
         "f093ec099e5c7131e99fdc6750c9802eba643527"),
        ("e005", 5, None, "ADR 5: Record architecture decisions.", d + "adr-005-record-architecture-decisions.md",
         "0b87e62288ddb1653451f84e1f36e17ce4e8e9dc"),
        ("e006", 6, "2020-10-23", "ADR 6: Email delivery responsibilities: Email Alert API has a responsibility to "
         "send email, but does not have a responsibility to deliver it; that is the responsibility of Notify.",
         d + "adr-006-email-delivery-responsibilities.md", "610798c4476ca3fd551566515a05aedfbe834f00"),
        ("e007", 7, "2020-11-19", "ADR 7: Retain data for up to one year: historic, unused data is removed "
         "periodically from the system entirely; data the system no longer uses exists for a maximum of 1 year.",
         d + "adr-007-retain-data-for-up-to-one-year.md", "db9997e567f41929e07171591413454e7e1d4c95"),
        ("e008", 8, None, "ADR 8: Monitoring and alerting.", d + "adr-008-monitoring-and-alerting.md",
         "f8ba4d5eda1a48428283e0e1b4a613311c6cca73"),
        ("e009", 9, None, "ADR 9: Sidekiq lost job recovery.", d + "adr-009-sidekiq-lost-job-recovery.md",
         "f4feab5bf86c390ae4b7c7653b62e9587628ecab"),
        ("e010", 10, None, "ADR 10: Send unpublish emails for single pages.",
         d + "adr-010-send-unpublish-emails-for-single-pages.md", "2f8f73ea8955959c131a2262eb0130fb455ac4d0"),
    ]
    reports = [
        ("r_e006", "e006", "Notify integration: we were concerned that Notify functionality was duplicated in Email "
                           "Alert API and that this had an adverse effect on the complexity of the system.",
         d + "adr-006-email-delivery-responsibilities.md", "610798c4476ca3fd551566515a05aedfbe834f00"),
        ("r_e007a", "e007", "We now generate ~430,000 DigestRunSubscriber records each day, about eight times the "
                            "amount of ten months ago.", d + "adr-007-retain-data-for-up-to-one-year.md",
         "db9997e567f41929e07171591413454e7e1d4c95"),
        ("r_e007b", "e007", "In the last week alone we've accumulated 1139 subscriber lists which don't have any "
                            "subscriptions at all.", d + "adr-007-retain-data-for-up-to-one-year.md",
         "db9997e567f41929e07171591413454e7e1d4c95"),
    ]
    return project(
        "email-alert-api", "alphagov/email-alert-api",
        "MIT (the README's Licence section: 'MIT License (LICENCE)', at 02efd4aa; the licence file itself was not in "
        "the stored copy)", True, d + "adr-003, 006, 007 read; titles of 005, 008, 009, 010 from their file names "
        "(adr-003-initial-data-retention-strategy and adr-007-data-retention/monitoring-and-alerting are earlier "
        "copies, left out)",
        {3: "2018-02-15", 6: "2020-10-23", 7: "2020-11-19", 10: "2021-09-01"},
        records, reports, updates=[("e003", "e007")])


# --- alphagov/verify-proxy-node ------------------------------------------------------------------------------
def verify_proxy_node():
    d = "doc/adr/"
    records = [
        ("v0001", 1, "2017-11-07", "ADR 1: Gradle as the build tool.", d + "0001-gradle-as-the-build-tool.md",
         "3e42e4757586a42fcefb21662b7a6e705a1b4559"),
        ("v0002", 2, "2017-11-07", "ADR 2: Continuous integration on Jenkins: all our continuous integration and "
         "deployment jobs will be on the internal CI Jenkins, configured by Jenkins Job Builder.",
         d + "0002-continuous-integration-on-jenkins.md", "3e42e4757586a42fcefb21662b7a6e705a1b4559"),
        ("v0003", 3, "2017-11-07", "ADR 3: Deploy to PaaS: the proxy node service will be deployed and run on PaaS, "
         "which avoids having to deal with infra ourselves.", d + "0003-deploy-to-paas.md",
         "9f79592e1b7b534c04d469afb96d017abec2bec4"),
        ("v_meta", None, "2019-03-18", "Automatic metadata.", d + "20190318-automatic-metadata.md",
         "0bdaddbf134e182d3c72dac4e28016b807161c65"),
        ("v_gsp", None, "2019-03-18", "Deploy proxy node on GDS Supported Platform: the proxy node AWS "
         "infrastructure, including the Kubernetes deployment and CI system, will be built and managed by the GSP "
         "team; developers entrust deployment to the GSP pipeline.", d + "20190318-deploy-to-gsp.md",
         "b88871b1cef7f21bd82e17d337a3457661b4dc87"),
        ("v_multi", None, "2019-03-18", "Multiple proxy nodes.", d + "20190318-multiple-proxy-nodes.md",
         "d435d8a15b6b68ec67162c7ee93f1bcfd171bf41"),
        ("v_trace", None, "2019-03-20", "Additional tracing.", d + "20190320-additional-tracing.md",
         "ef38e106483b25425281e3213ee468a8fe9d3aa4"),
        ("v_anti", None, "2019-03-20", "Anti-affinity.", d + "20190320-anti-affinity.md",
         "c2f4c1970f4f6f6ef730f001664423a59aab2a93"),
        ("v_sep", None, "2019-03-21", "Separation of concerns.", d + "20190321-separation-of-concerns.md",
         "d6628026df7ed1d6a53728970689e5ab8cee246f"),
        ("v_hash", None, "2019-03-27", "Hashing attributes.", d + "20190327-hashing-attributes.md",
         "5cb58f6d8a7e7d1a7900e8d871c56ee8c8cb63e4"),
    ]
    return project(
        "verify-proxy-node", "alphagov/verify-proxy-node", "MIT (LICENCE at 17926a23, Crown Copyright)", True,
        d + "0002, 0003, 20190318-deploy-to-gsp read; titles of the others from their file names (their dates too)",
        {1: "2017-11-07"}, records, [],
        # the GSP record moves hosting off PaaS without citing ADR 3; its CI system replaces Jenkins in part
        updates=[("v0003", "v_gsp")], unnamed=[("v0003", "v_gsp")], ambiguous=[("v0002", "v_gsp")])


# --- island-is/island.is -------------------------------------------------------------------------------------
def island():
    d = "handbook/technical-overview/adr/"
    c = "4765eb573b5223b94c52691c73da4b2171212335"
    titles = {0: ("Use Markdown Architectural Decision Records", "0000-use-markdown-architectural-decision-records",
                  "5224f01c0d0d95327cfd04cee020574b7c6a4d35"),
              1: ("Use NX", "0001-use-nx", c), 2: ("Continuous Integration", "0002-continuous-integration", c),
              3: ("CSS", "0003-css", "2263ce5fd4e2e81fbcd8615b3b1a05455a93b59a"),
              4: ("Branching and release strategy", "0004-branching-and-release-strategy", c),
              6: ("What API Management tool to consider", "0006-what-api-management-tool-to-consider", c),
              7: ("Viskuausan Static Site Generator", "0007-viskuausan-static-site-generator", c),
              8: ("Use OAuth 2.0 and OpenID Connect as protocols for Authentication and Authorization",
                  "0008-use-oauth-and-openid-connect", "5bc70877239100a229a7155f1e31f04d511111bc"),
              9: ("Unified naming strategy for files and directories", "0009-naming-files-and-directories",
                  "1f41e7438f78478705b7dda3da4238ac24116416"),
              10: ("CMS", "0010-cms", c), 11: ("Open source license", "0011-open-source-license",
                                             "f2de43cb9e2efc412cc6d85c6b938acf50e8bad8"),
              12: ("Chart library", "0012-chart-library", "58f9b0608969146636472fc3e8b33249b8d02641"),
              13: ("Feature flags", "0013-feature-flags", "22cc15fe802a8eb8567c65a5ce54606eb8a5b7e2")}
    records = [(f"i{n:02d}", n, None, f"ADR {n}: {t}.", d + f + ".md", cm) for n, (t, f, cm) in titles.items()]
    records += [
        ("i05", 5, "2020-06-12", "ADR 5: Error tracking and monitoring: chosen option Sentry, because it ranks higher "
         "in a community survey regarding our stack (JavaScript) and is much cheaper than Bugsnag.",
         d + "0005-error-tracking-and-monitoring.md", "39e1b38130c20709af97143dfa3c7c0496de9fa5"),
        ("i14", 14, "2021-01-27", "ADR 14: Logging, monitoring and APM platform: a SaaS solution (DataDog) is a clear "
         "winner over a self-hosted Elasticsearch, Grafana, Kibana, Logstash and Jaeger stack.",
         d + "0014-logging-apm-monitoring.md", "aaa4e91a6c4cfcdd4bb84cd6221db0013b29983c"),
    ]
    reports = [("r_i14", "i14", "Due to a disagreement between AWS and the company behind the open source "
                                "Elasticsearch, there is some uncertainty about its future on the AWS platform.",
                d + "0014-logging-apm-monitoring.md", "aaa4e91a6c4cfcdd4bb84cd6221db0013b29983c")]
    return project(
        "island-is", "island-is/island.is", "MIT (LICENSE at 27c213b1, Digital Iceland)", True,
        d + "0005 and 0014 read; the others' titles from README.md (18611167) and the file names "
        "(0013-logging-apm-monitoring is an earlier copy of 0014, left out)",
        {0: "2020-04-01", 5: "2020-06-12", 14: "2021-01-27"}, records, reports, updates=[])


# --- alphagov/content-publisher ------------------------------------------------------------------------------
def content_publisher():
    d = "docs/adr/"
    titles = {1: ("c01", "Record architecture decisions", "0001-record-architecture-decisions",
                  "d5d4c9120043dea58f7d4794e0424a21d2fb32dc"),
              2: ("c02", "Use a local datastore", "0002-use-local-datastore", "757f1068092548ea77cf702c4f6cd4abb08a56ab"),
              3: ("c03", "Initial domain modelling", "0003-initial-domain-modelling",
                  "20b1921bf774f18d45dcfb1dc2d5f045826b6dc8"),
              5: ("c05", "Avoiding initialisation flickers", "0005-avoiding-initialisation-flickers",
                  "7e57534256339ce9a57cfb9a379b933b12560ec2"),
              10: ("c10", "Sending email notifications", "0010-sending-email-notifications",
                   "8e56ce3fcbe54417d6f4bd08c064c14aa371b396"),
              11: ("c11", "Moving business logic out of controllers", "0011-moving-business-logic-out-of-controllers",
                   "a6089d04a7d35e998a503275b0de3cf870e9d5b8"),
              12: ("c12", "File attachment rendering", "0012-file-attachment-rendering",
                   "e7fba7ebe4095775ad4b579f90d0ccadd79cab97"),
              15: ("c15", "Bulk data loading", "0015-bulk-data-loading", "e697a10c8b6e8c5467b525ac07e5bf2db11ac97f"),
              16: ("c16", "Publishing times and change history", "0016-publishing-times-and-change-history",
                   "21a61173e5c2238928f8ec55ee0d9f74c82fb24e")}
    records = [(key, n, None, f"ADR {n}: {t}.", d + f + ".md", c) for n, (key, t, f, c) in titles.items()]
    records += [
        ("c04a", 4, None, "ADR 4: Editing microcopy.", d + "0004-editing-microcopy.md",
         "f57c79f6106f635e5fc4b1753caab392125144bc"),
        ("c04b", 4, None, "ADR 4: Translations.", d + "0004-translations.md", "8bbde020b7f0927211661a68bab021823c477dc1"),
        ("c06", 6, "2018-12-12", "ADR 6: Tagging content to governments: we decided to defer implementing support "
         "for political content; the government and political attributes are not set.",
         d + "0006-tagging-governments.md", "18ef2b79766347d56b005d4b47b28b1ef56ad064"),
        ("c08a", 8, "2019-01-24", "ADR 8: Restricted deletion: we don't have any real-world scenarios for deleting "
         "stuff from the database, so we restrict on all foreign key delete actions.",
         d + "0008-restricted-deletion.md", "d5fd53ee3d405ae214820e5a39f19bb8d427b531"),
        ("c08b", 8, None, "ADR 8: Reserving paths in Publishing API.", d + "0008-reserving-paths-in-publishing-api.md",
         "4a1a56b7eeb3660559edf31e5086ddc3fe902c41"),
        ("c09", 9, "2018-12-17", "ADR 9: Modelling history: the domain model stores the individual editions of a "
         "document, each revision of its content and each status an edition has held, with immutable revisions.",
         d + "0009-modelling-history.md", "fb5548be0363186c50a6f569e092430060714cc9"),
        ("c13", 13, "2019-07-24", "ADR 13: Permitted deletion: data is removed from Content Publisher during the "
         "production to integration sync; restrict constraints in the editions table are replaced with cascade.",
         d + "0013-permitted-deletion.md", "73f47a4827b087a6e06683a617ea8328d1d2f978"),
        ("c14", 14, "2019-12-19", "ADR 14: Political and government tagging: a service runs each time content is "
         "edited to determine whether it is political and, once published or backdated, its government.",
         d + "0014-political-and-government-tagging.md", "b661d2311fa9af98b3e0aff90f530293a9db85a9"),
    ]
    reports = [
        ("r_c09", "c09", "Users cannot discard a new draft of a published document, because creating a new draft "
                         "overwrites the data stored for the published edition.", d + "0009-modelling-history.md",
         "fb5548be0363186c50a6f569e092430060714cc9"),
        ("r_c13", "c13", "Access limits: production data is synchronised to an integration environment where the "
                         "access controls aren't as stringent, potentially allowing unauthorised users access to "
                         "sensitive content.", d + "0013-permitted-deletion.md",
         "73f47a4827b087a6e06683a617ea8328d1d2f978"),
    ]
    return project(
        "content-publisher", "alphagov/content-publisher",
        "MIT (the README's Licence section: 'MIT License (LICENCE)', at 06b0af1a; the licence file itself was not in "
        "the stored copy)", True,
        d + "0006, 0008-restricted-deletion, 0009, 0013, 0014 read; titles of the others from their file names (the "
        "000x/00xx drafts and 0007 drafts left out)",
        {1: "2018-06-01", 9: "2018-12-17", 13: "2019-07-24", 14: "2019-12-19", 16: "2020-03-01"},
        records, reports,
        updates=[("c06", "c14"), ("c08a", "c13")],
        ambiguous=[("c03", "c09")])  # ADR 9 changes the domain model ADR 3 set, keeping its translations rule


# --- guardian/dotcom-rendering --------------------------------------------------------------------------------
def dotcom_rendering():
    d = "docs/architecture/"
    titles = {0: ("Adopt the lightweight architectural decision record format", "000-architecture-decision-records",
                  "a63f5354ef9229d64398ee878fa720d02fa22e5a"),
              1: ("Dotcom rendering", "001-dotcom-rendering", "8889f78171da22af8d9d21b2f305ee9c1e560400"),
              2: ("Componentisation", "002-componentisation", "8889f78171da22af8d9d21b2f305ee9c1e560400"),
              4: ("Emotion", "004-emotion", "e481cc0738229fa0e479afd10730900e3a880361"),
              5: ("Monorepo", "005-monorepo", "e481cc0738229fa0e479afd10730900e3a880361"),
              6: ("Multiple sites", "006-multiple-sites", "f2dfe9109bb9e48045924926ffaaaeca3bad883c"),
              10: ("Storybook", "010-storybook", "bf82ec1012fa0059a5a8cc7fd5d06bb1909cecb7"),
              11: ("CAPI elements as components", "011-capi-elements-as-components",
                   "c2c4a10475538d6f910dda619d801173828dccba"),
              12: ("AMP", "012-amp", "304561b5f96d3821476bdfa4fa291d173cfddec2"),
              15: ("Cookies", "015-cookies", "50b85af426bc68c8e5a836e1d4cd28e942a2da0c"),
              16: ("Client-side computation", "016-client-side-computation", "e83332ca42c461c848acd346886163a64b2fea83"),
              18: ("React Context API", "018-react-context-api", "2e755856a1028a580ac61eecb60e5f6a7bc8d6b4"),
              25: ("Click to view", "025-click-to-view", "f7517010b1dce5fb57c6bf3c39fd39a67aa5d0a9")}
    records = [(f"d{n:03d}", n, None, f"ADR {n}: {t}.", d + f + ".md", c) for n, (t, f, c) in titles.items()]
    records += [
        ("d003", 3, None, "ADR 3: React: to build the dotcom rendering layer in React.", d + "003-react.md",
         "3d2ff1f1107018eb19692c6a0356c886f56e2854"),
        ("d008", 8, None, "ADR 8: CSS-in-JS: use CSS-in-JS to represent styles, with a compatible library such as "
         "Emotion.", d + "008-css-in-js.md", "3f5e44aa5fd2cbf13fab464cefcf934d5373121c"),
        ("d017", 17, None, "ADR 17: JavaScript loading: load scripts in the head as deferred, or as async at the "
         "bottom of the HTML body; all other script loading is prohibited, and there is no universal boot file.",
         d + "017-javascript-loading.md", "6e836b21c0bf2fe00f15a190bd86a3ed4b402d94"),
        ("d020", 20, None, "ADR 20: Moving from React to Preact: webpack aliases let preact/compat intercept react "
         "and react-dom imports, taking our bundle from ~93kb to ~66kb.", d + "020-react-to-preact.md",
         "bfd724ed67818555fff11af22380099dd2d2823c"),
        ("d023", 23, None, "ADR 23: Support dynamic imports via polyfills for browsers that need them, exposed via "
         "window.guardianPolyfilledImport.", d + "023-dynamic-imports.md", "8771891967bab557b20e81f15765fabc574b26c0"),
    ]
    return project(
        "dotcom-rendering", "guardian/dotcom-rendering",
        "Apache-2.0 (LICENSE at 026a2aff, Guardian News & Media)", True,
        d + "003, 008, 017, 020, 023 read; titles of the others from their file names (002-components is an earlier "
        "copy of 002-componentisation); the records carry no dates and are placed by number",
        {0: "2018-03-01", 25: "2020-09-01"}, records, [],
        updates=[("d003", "d020")],  # ADR 20 cites ADR 3's concern and makes "the jump from React to Preact"
        ambiguous=[("d017", "d023")])  # dynamic imports loosen ADR 17's "all other script loading is prohibited"


# --- raster-foundry/raster-foundry ---------------------------------------------------------------------------
def raster_foundry():
    d = "docs/architecture/"
    titles = {0: ("Architecture documentation", "adr-0000-architecture-documentation",
                  "c41769130f871554d823f84843004a4cd2be033d"),
              1: ("Authentication", "adr-0001-authentication", "c41769130f871554d823f84843004a4cd2be033d"),
              3: ("Testing philosophy", "adr-0003-testing-philosophy", "11215cc42b19399c7cce6a1996e8b89c24cb1413"),
              4: ("Static asset pipeline", "adr-0004-static-asset-pipeline", "53d49cf028db01c66a6988c9f539e64d12cf9c88"),
              5: ("Web backend language and framework", "adr-0005-web-backend-language-and-framework",
                  "c41769130f871554d823f84843004a4cd2be033d"),
              7: ("OS containers", "adr-0007-os-containers", "edac86dd338a53bc4e75ee7e63bcb8c0074d9e46"),
              9: ("CI server", "adr-0009-ci-server", "56f215b18bef1f181c9396e6f95af3f5550d3ed1"),
              10: ("Domain layout", "adr-0010-domain-layout", "c41769130f871554d823f84843004a4cd2be033d"),
              12: ("Map component API", "adr-0012-map-component-api", "b513c5fbbe07a41496ef91b7a7ffe1ed81a5e09c"),
              13: ("Spark execution environment", "adr-0013-spark-execution-environment",
                   "53d23e21e6cf2b17d043cfaf66c07d82960a2182"),
              16: ("Imports", "adr-0016-imports", "4c793613d42a205bc064d76168ab1f2837e04910"),
              17: ("Exports", "adr-0017-exports", "89dcec8e6a0e711aec8004d490c1a708c399cf81"),
              18: ("FP concepts", "adr-0018-fp-concepts", "85d6a95310a2658cd3d8168cdc870cfce06c5cc1"),
              20: ("Access control and organizations", "adr-0020-access-control-and-organizations",
                   "a35eef770b890ee72812744596c59f7789df4672"),
              21: ("Lab workspaces", "adr-0021-lab-workspaces", "d187d46461f181233b15add8fa0d7efb260fad13"),
              22: ("Anti-meridian artifacts", "adr-0022-anti-meridian-artifacts",
                   "681f13974b95dba258f1200987a6908071dee050"),
              23: ("Text array object ACRs", "adr-0023-text-array-object-acrs",
                   "a35eef770b890ee72812744596c59f7789df4672"),
              24: ("Metrics scripting", "adr-0024-metrics-scripting", "a37f38dbd2ebadba85b6ab9545b86aef620b1969"),
              25: ("User access scopes", "adr-0025-user-access-scopes", "398e9d95678922ac08a23dd359443d22ee319654"),
              27: ("Annotate project STAC export", "adr-0027-annotate-project-STAC-export",
                   "cfde8e74c012af5ed3dae30ad4d5ef8b7a89b819"),
              28: ("Tracing", "adr-0028-tracing", "35094f8c57954407892a780301f4ad30a5a1376b")}
    records = [(f"f{n:02d}", n, None, f"ADR {n}: {t}.", d + f + ".md", c) for n, (t, f, c) in titles.items()]
    records += [
        ("f02a", 2, None, "ADR 2: API design framework and documentation: Raster Foundry will use Swagger to design "
         "and document its API instead of RAML.", d + "adr-0002-api-documentation.md",
         "c41769130f871554d823f84843004a4cd2be033d"),
        ("f02b", 2, None, "ADR 2: Frontend frameworks: Raster Foundry will initially use Angular 1.5, following the "
         "upgrade guide, and devote resources to an incremental upgrade process.", d + "adr-0002-frontend-framework.md",
         "7b7ebb7223e04f741a96398910a8b3efcd8a5840"),
        ("f06", 6, "2016-08-20", "ADR 6: Workflow/task manager: Raster Foundry will use Airflow as a task manager.",
         d + "adr-0006-workflow-manager.md", "10d7e5466467f82e5d69544989336bb35b08a30b"),
        ("f11", 11, None, "ADR 11: Framework for tool UI: JointJS remains the best choice as the diagramming "
         "framework for Raster Foundry's Tool UI.", d + "adr-0011-framework-for-tool-ui.md",
         "513563ea54f78e5f9340168fffe7e01e61b92653"),
        ("f14", 14, None, "ADR 14: API documentation revisited: we will write the API documentation as a traditional "
         "single-page app using Angular 2.", d + "adr-0014-api-documentation-revisited.md",
         "825f3be78f4624f71f6534ca93c0972da44cf724"),
        ("f15", 15, None, "ADR 15: Factories for test objects: we should create factories to make creating test "
         "objects easier, and try property based testing on tests of database behaviour.",
         d + "adr-0015-refactor-testing.md", "970f8fb319cb6a2521e40b1ce6e5cfd2e496abd6"),
        ("f19", 19, "2017-07-15", "ADR 19: Workflow/task manager: we are replacing all of the Airflow components "
         "(scheduler, web server, worker, Celery executor) with AWS Batch.", d + "adr-0019-workflow-manager.md",
         "10d7e5466467f82e5d69544989336bb35b08a30b"),
        ("f26", 26, None, "ADR 26: Post-hoc metrics scripting: scheduled metric aggregation with Lambda and Step "
         "Functions, parsing Athena query results into metric events.", d + "adr-0026-post-hoc-metrics-scripting.md",
         "48f7811596cfadcdd0ac15ab5bbd4f61f405c897"),
    ]
    reports = [
        ("r_f15", "f15", "The update method on scenes was broken and we didn't know until we tried to use our API to "
                         "update scenes' IngestStatus.", d + "adr-0015-refactor-testing.md",
         "970f8fb319cb6a2521e40b1ce6e5cfd2e496abd6"),
        ("r_f19", "f19", "Airflow's scheduler would at times lock up and cease scheduling queued jobs, emitting "
                         "cryptic error messages.", d + "adr-0019-workflow-manager.md",
         "10d7e5466467f82e5d69544989336bb35b08a30b"),
    ]
    return project(
        "raster-foundry", "raster-foundry/raster-foundry", "Apache-2.0 (LICENSE at 970f8fb3, Azavea)", True,
        d + "adr-0002 (both), 0006, 0011, 0014, 0015, 0019, 0026 read; titles of the others from their file names "
        "(adr-0012-spark-execution-environment is an earlier copy of 0013)",
        # Airflow was chosen in August 2016 and ran "in production for almost a year" before ADR 19
        {0: "2016-06-01", 6: "2016-08-20", 19: "2017-07-15", 28: "2019-12-01"},
        records, reports,
        updates=[("f06", "f19")],
        ambiguous=[("f02a", "f14")])  # the documentation site changes; Swagger stays


# --- cloudfoundry/cf-k8s-networking --------------------------------------------------------------------------
def cf_k8s_networking():
    d = "doc/architecture-decisions/"
    titles = {3: ("Tagging and publishing Docker images", "0003-tagging-and-publishing-docker-images",
                  "082b056f9d0007dcd63244ab641222a6b10f54cf"),
              4: ("Strategy for securing network traffic", "0004-strategy-for-securing-network-traffic",
                  "8aab2b2ff7b1814b4e5c5e7856cd5c5a72af97ff"),
              5: ("Networking acceptance tests", "0005-networking-acceptance-tests",
                  "8aab2b2ff7b1814b4e5c5e7856cd5c5a72af97ff"),
              6: ("Rewrite HTTP liveness and readiness probes for healthchecks",
                  "0006-rewrite-http-liveness-readiness-probes-for-healthchecks",
                  "082b056f9d0007dcd63244ab641222a6b10f54cf"),
              9: ("Kubebuilder controllers: dynamic client over generated clients",
                  "0009-kubebuilder-controllers-dynamic-client-over-generated-clients",
                  "7cfcf6ab65962931265a741dc01b0ff06e7b4c5a"),
              11: ("Use kind clusters for routecontroller integration",
                   "0011-use-kind-clusters-for-routecontroller-integration", "713bed12d3dbd52b6099b2358dd9cf28398471df"),
              12: ("RouteController route deletion finalizer", "0012-routecontroller-route-deletion-finalizer",
                   "44fac6bb3cde4d75d9e819434b4b707dd0bb7487"),
              15: ("App access logs from the ingressgateway", "0015-app-access-logs-from-ingressgateway",
                   "b0da82a2df12d0b3df4ba1ba08d4cb6d283546a0"),
              16: ("Job for upgrading Istio sidecars on workloads", "0016-job-for-upgrading-istio-sidecars-on-workloads",
                   "30e3d78ce2238ccab1ef4bae3e7d85e14851d07b"),
              18: ("Create policy server", "0018-create-policy-server", "30193b19ebe4f9713204dada81a57c66b495673f")}
    records = [(f"n{n:02d}", n, None, f"ADR {n}: {t}.", d + f + ".md", c) for n, (t, f, c) in titles.items()]
    records += [
        ("n02", 2, "2019-10-22", "ADR 2: Directly create Istio resources: CF Route Syncer will directly create k8s "
         "Services and Istio VirtualServices instead of creating intermediate Route CRDs.",
         d + "0002-directly-create-istio-resources.md", "fb596b41e486f4e98bb3ef670a55c0e0424e50ca"),
        ("n07", 7, "2020-02-19", "ADR 7: Maintain generated Istio: we move the scripts to build Istio configuration, "
         "and maintain a generated Istio configuration, within the cf-k8s-networking repository.",
         d + "0007-maintain-generated-istio.md", "3f55af54912a527de16a8f70645018e4f13f9dba"),
        ("n08", 8, "2020-02-24", "ADR 8: Workarounds for CAPI and log-cache to unblock global STRICT mTLS: "
         "configuration workarounds in the form of Policies, placed in the cf-for-k8s repo, let these components "
         "accept plain text.", d + "0008-implement-workarounds-for-capi-and-log-cache-to-unblock-global-strict-mtls.md",
         "0421202088179dcd4dbde05cfce0ac93ddd3736b"),
        ("n10", 10, "2020-05-05", "ADR 10: Create a Route CRD and use Kubebuilder instead of cfroutesync and "
         "Metacontroller: Cloud Controller performs CRUD operations on Route resources, and cfroutesync and "
         "Metacontroller are removed.", d + "0010-route-crd-and-kubebuilder-instead-of-metacontroller.md",
         "3f55af54912a527de16a8f70645018e4f13f9dba"),
        ("n13a", 13, None, "ADR 13: Stopped app routing.", d + "0013-stopped-app-routing.md",
         "55a9068f81ada5fee109f0084c768f620cd1afc6"),
        ("n13b", 13, None, "ADR 13: Rename the master branch.", d + "0013-rename-master-branch.md",
         "017300cb5870d44d13fc43c7d48a7888dcfa8b55"),
        ("n14", 14, "2020-06-26", "ADR 14: Ingress gateway as a daemon set instead of a deployment: the Istio "
         "Ingress Gateway binds ports 80 and 443 on each node directly, without a Kubernetes Load Balancer Service.",
         d + "0014-ingress-gateway-as-a-daemon-set.md", "017300cb5870d44d13fc43c7d48a7888dcfa8b55"),
        ("n17", 17, "2020-09-15", "ADR 17: Moving Istio and related configuration to the cf-for-k8s repo: Istio "
         "config generation, overlays and generated config move to cf-for-k8s.",
         d + "0017-moving-istio-configuration-out-of-this-repo.md", "3132281295754f04e0a9789c52db13aedc11119a"),
        ("n19", 19, "2020-10-26", "ADR 19: Allow an alternative ingress solution provider in RouteController: an "
         "ingress_solution_provider option, istio or contour; routecontroller creates resources for only one of "
         "them.", d + "0019-route-crd-and-contour-controller.md", "56de9172becc12cc2673d8070ed7f2841220a243"),
    ]
    reports = [
        ("r_n02", "n02", "Istio permits multiple VirtualServices for the same FQDN, but the order in which their path "
                         "match rules are applied is non-deterministic.",
         d + "0002-directly-create-istio-resources.md", "fb596b41e486f4e98bb3ef670a55c0e0424e50ca"),
        ("r_n08", "n08", "CAPI's init container comes up before the sidecar, so it cannot establish an mTLS "
                         "connection with the CAPI database and fails.",
         d + "0008-implement-workarounds-for-capi-and-log-cache-to-unblock-global-strict-mtls.md",
         "0421202088179dcd4dbde05cfce0ac93ddd3736b"),
        ("r_n10a", "n10", "The periodic sync loop of cfroutesync and Metacontroller adds around 7 seconds of latency on "
                          "top of the ~7 seconds of Istio control plane latency, exceeding our scaling targets.",
         d + "0010-route-crd-and-kubebuilder-instead-of-metacontroller.md", "3f55af54912a527de16a8f70645018e4f13f9dba"),
        ("r_n10b", "n10", "Metacontroller itself is no longer supported and presents issues with Kubernetes v1.16+.",
         d + "0010-route-crd-and-kubebuilder-instead-of-metacontroller.md", "3f55af54912a527de16a8f70645018e4f13f9dba"),
        ("r_n17", "n17", "Having the networking and Istio config in both cf-for-k8s and cf-k8s-networking has made "
                         "updating networking config, versioning routecontroller and upgrading Istio complicated.",
         d + "0017-moving-istio-configuration-out-of-this-repo.md", "3132281295754f04e0a9789c52db13aedc11119a"),
    ]
    return project(
        "cf-k8s-networking", "cloudfoundry/cf-k8s-networking",
        "Apache-2.0 as for Cloud Foundry Foundation projects (NOT verified: the licence file was not in the stored "
        "copy read -- check on the repository before reuse)", False,
        d + "0002, 0007, 0008, 0010, 0014, 0017, 0019 read; titles of the others from their file names "
        "(0012-stopped-app-routing and 0018-route-crd-and-contour-controller are earlier copies, left out)",
        {2: "2019-10-22", 7: "2020-02-19", 8: "2020-02-24", 10: "2020-05-05", 14: "2020-06-26", 17: "2020-09-15",
         19: "2020-10-26"},
        records, reports,
        updates=[("n02", "n10"), ("n07", "n17")])  # ADR 2 "Superseded by ADR 10"; ADR 17 "reverts" ADR 7


# --- ministryofjustice/offender-management-architecture-decisions --------------------------------------------
def offender_management():
    d = "decisions/"
    readme = "README.md at 4b0f0981 (the table of contents)"
    titles = {1: "Record architecture decisions", 2: "Use Cloud Platform for hosting", 3: "Use progressive enhancement",
              4: "Separate API and user-facing applications", 5: "Allocation API owns allocation data",
              6: "Use the Custody API to access NOMIS data",
              7: "Use Ruby for new applications for Manage Offenders in Custody", 8: "Use Rails",
              9: "Use CircleCI for CI and deployment", 10: "Allocation API has less responsibility",
              11: "Use NOMIS OAuth2 server for allocation API authentication",
              12: "Start out with one environment which uses T3 NOMIS", 13: "Use NOMIS SSO for user authentication",
              14: "Access the Delius API via NDH", 15: "Manage short-lived access tokens in tests",
              17: "Use blue-green deployments to manage database migrations"}
    records = [(f"o{n:02d}", n, None, f"ADR {n}: {t}.", readme, "4b0f0981f716f41e0b1c123543e66d26fedc7677")
               for n, t in titles.items()]
    records += [
        ("o16", 16, "2019-01-18", "ADR 16: Use the Elite2 API to access NOMIS data: we will use the Elite2 API for "
         "access to the data we require from NOMIS.", d + "0016-use-elite2-api.md",
         "2cf6aaece304c7c54ae376bb6439bd389861f613"),
        ("o20", 20, "2019-02-06", "ADR 20: Unify API and presentation layers: we will integrate the existing "
         "Allocation API into the Allocation Manager, and work in a single unified codebase.",
         d + "0020-unify-api-and-presentation-layer.md", "fd5a399a1475d6506fad50f6039ff5e3041453f8"),
    ]
    reports = [
        ("r_o16", "o16", "Initial use of the Custody API has raised issues: problems with the locality of data, N+1 "
                         "API requests, and data that is unavailable through the published endpoints.",
         d + "0016-use-elite2-api.md", "2cf6aaece304c7c54ae376bb6439bd389861f613"),
        ("r_o20", "o20", "Processes that retrieve data, enrich it with data from external APIs and then with local "
                         "data move lots of data, which has performance costs.",
         d + "0020-unify-api-and-presentation-layer.md", "fd5a399a1475d6506fad50f6039ff5e3041453f8"),
    ]
    return project(
        "offender-management", "ministryofjustice/offender-management-architecture-decisions",
        "MIT as for Ministry of Justice repositories (NOT verified: no licence file in the stored copy read -- check "
        "on the repository before reuse)", False,
        readme + "; decisions/0016 and 0020 read",
        {1: "2018-06-01", 16: "2019-01-18", 17: "2019-01-25", 20: "2019-02-06"},
        records, reports, updates=[],
        # the index marks ADR 4 and ADR 6 "Amended"; ADR 20 "Amends" 4 and 10 and says 10 reversed 4
        ambiguous=[("o06", "o16"), ("o04", "o10"), ("o04", "o20"), ("o10", "o20")])


ABOUT = (
    "Session 35's held-out Architecture Decision Records (sources, licences and the commit read per record; "
    "README.md, section 'Held out, session 35'), transcribed as adr_projects.json was: one memory per record, its "
    "number, title and, where read, its decision in the authors' words trimmed to a sentence or two. `updates` are "
    "the pairs the authors marked (older first); `updates_unnamed` repeats those whose newer record states the new "
    "state without citing the older; `ambiguous` pairs count neither way; `reports` report on a subject and never "
    "supersede anything. Every other link is wrong. Split `held-out-s35` for every project: committed before any "
    "run, never tuned on, run once by the lead (bench/public_links.py --held-out-s35). `licence_verified` is false "
    "where the licence file was not in the copy read. Built by bench/build_adr_held_out_s35.py.")


def build() -> dict:
    projects = [paas(), konflux(), teaching_vacancies(), email_alert_api(), verify_proxy_node(), island(),
                content_publisher(), dotcom_rendering(), raster_foundry(), cf_k8s_networking(), offender_management()]
    return {"_about": ABOUT, "projects": projects}


def main() -> int:
    data = build()
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    ps = data["projects"]
    print(f"{OUT}: {len(ps)} projects, {sum(len(p['memories']) for p in ps)} memories, "
          f"{sum(len(p['updates']) for p in ps)} update pairs ({sum(len(p['updates_unnamed']) for p in ps)} unnamed), "
          f"{sum(len(p['ambiguous']) for p in ps)} ambiguous, {sum(len(p['reports']) for p in ps)} reports")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

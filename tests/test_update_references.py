"""A record that names the record it replaces (server/updates/references.py, used by server.linker): the author's
claim links across the numbered-records guard; two numbered records without such a claim stay two things."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from server.config import Settings
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService
from server.updates import references
from server.updates.references import Reference

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
TENANCY = "ADR004: Tenant Isolation. We will manage multiple Kubernetes clusters, one per environment per tenant."
INGRESS = "ADR005: Ingress. We shall provide a single load-balancer to provide ingress to each cluster."
AUTH = "ADR006: Cluster Authentication Method. We will use OIDC."


def _said(text: str) -> list[tuple[str | None, int | None, bool, bool]]:
    return [(c.reference.series if c.reference else None, c.reference.number if c.reference else None, c.newer,
             c.partial) for c in references.claims(text)]


@pytest.mark.parametrize("text, expected", [
    ("ADR024: Soft multi-tenancy. This supersedes ADR-4.", [("adr", 4, True, False)]),
    ("ADR 24: Soft multi-tenancy. Supersedes ADR 0004 and ADR 0006.", [("adr", 4, True, False), ("adr", 6, True, False)]),
    ("RFC 9: Token auth. Replaces RFC 7, 8 and 10.", [("rfc", 7, True, False), ("rfc", 8, True, False),
                                                       ("rfc", 10, True, False)]),
    ("This decision deprecates the earlier decision 3.", [("adr", 3, True, False)]),
    ("This PR replaces #12.", [(None, 12, True, False)]),
    ("Status: Superseded by ADR-0024.", [("adr", 24, False, False)]),
    ("ADR 30: Queues. ADR-12 is now superseded.", [("adr", 12, True, False)]),
    ("This partially supersedes ADR 3; its logging part stays.", [("adr", 3, True, True)]),
    ("ADR 31: Amends ADR 7 for the batch jobs.", [("adr", 7, True, True)]),
    # adr-tools' statuses: a Markdown link, its number in the text or the file it points to
    ("Status: Superseded by [5. Use Y](0005-use-y.md)", [(None, 5, False, False)]),
    ("Supersedes [ADR-0002](0002-use-x.md) and [Use Z](docs/adr/0003-use-z.md)", [("adr", 2, True, False),
                                                                                 (None, 3, True, False)]),
])
def test_a_claim_names_the_record_and_says_which_way(text, expected):
    assert _said(text) == expected


@pytest.mark.parametrize("text", [
    "ADR024: Soft multi-tenancy. This does not supersede ADR-4, which still holds for prod.",
    "ADR 22: Remove the Elasticsearch proxy: in AWS the ELBs replace the local nginx proxies.",
    "ADR 17: Terraform data: this replaces the data portion of ADR 10 with data/common/<environment>.",
    "ADR024: Soft multi-tenancy. Each programme shares a single cluster (see ADR-4 for the old model).",
    "We replaced 4 workers with 2 bigger ones.",
    "This replaces the decision 3 weeks ago to pin the image.",  # an amount of time, no record
])
def test_no_claim_without_a_claim_word_over_the_whole_record(text):
    """A record only mentioned, a part of it replaced ("the data portion of ADR 10": the authors marked that pair
    neither way), a negated claim, or a number that names no record: no claim."""
    assert references.claims(text) == []


def test_a_record_is_known_by_its_number_in_any_writing_and_its_title():
    assert references.numbered(TENANCY) == Reference("adr", 4)
    assert references.numbered("ADR 4: Tenant isolation.") == Reference("adr", 4)
    assert references.numbered("RFC-0007 - Token auth") == Reference("rfc", 7)
    assert references.numbered("Step 3: run the migrations") is None
    assert references.title(TENANCY) == "Tenant Isolation"
    claim = references.claims("ADR024: Soft multi-tenancy. This supersedes ADR-4.")[0]
    assert references.names(claim, TENANCY) and not references.names(claim, "ADR024: Soft multi-tenancy.")
    assert not references.names(claim, "RFC 4: Token auth.")  # another series
    quoted = references.claims('Run "make test" instead of "npm test".')[0]
    assert quoted.title == ("npm", "test") and not references.names(quoted, "npm test runs the unit tests.")
    assert references.names(quoted, "ADR 9: npm test. CI runs npm test on every push.")  # a record by its title
    searches = references.searches(Reference("adr", 4))
    assert {"adr4", "adr004", "dr0004"} <= set(searches[0][0]) and searches[0][1] == ()  # "ADR004" is one word
    assert (("0004", "004", "04", "4"), ("adr",)) in searches  # "ADR 4", "ADR-0004": the number and the series' word
    assert all(every for _, every in searches[1:])  # never the number alone, with a series


def test_a_later_record_under_the_same_title_revises_it_but_a_lists_steps_do_not():
    assert references.same_title(INGRESS, "ADR025: Ingress. We will use an Istio Ingress Gateway.")
    assert not references.same_title(INGRESS, "ADR005: Ingress. We shall provide ...")  # the same record
    assert not references.same_title(AUTH, "ADR023: Cluster Authentication. We will use aws-iam-authenticator.")
    assert not references.same_title("Step 3: Deploy. Run the playbook.", "Step 4: Deploy. Run the smoke test.")


@pytest.fixture
def svc(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    service = MemoryService.open(Settings(home=home, embedder="hash", model_wait_seconds=5), embedder=HashEmbedder())
    yield service
    service.close()


def _write(svc, texts: list[str]) -> list:
    return [svc.remember(t, thread="gsp", created_at=T0 + timedelta(days=10 * i)) for i, t in enumerate(texts)]


def test_a_record_that_says_it_supersedes_another_links_it_across_the_numbered_records_guard(svc):
    """ADR024 and ADR004 share almost no words and are two numbered records (rules.different_things): only the
    author's "supersedes ADR-4" connects them, and remember says so."""
    tenancy, ingress, soft = _write(svc, [TENANCY, INGRESS,
                                          "ADR024: Soft Multi-tenancy. Each programme shares a single GSP cluster "
                                          "with its service teams. This supersedes ADR-4."])
    assert soft.updates == tenancy.id and svc.get(tenancy.id).superseded_by == soft.id
    assert "supersedes ADR-4" in soft.message and svc.get(ingress.id).superseded_by is None


def test_two_numbered_records_without_a_claim_stay_two_things(svc):
    tenancy, soft = _write(svc, [TENANCY, "ADR024: Tenant Isolation for CI. We will manage multiple Kubernetes "
                                          "clusters, one per environment per tenant, for CI too."])
    assert soft.updates is None and svc.get(tenancy.id).superseded_by is None


def test_a_record_superseded_by_a_later_number_links_when_that_record_is_written(svc):
    """The older record's status names the newer ("Superseded by ADR 24"); the newer, written after it, says
    nothing of it: the link is made when the newer is written (and also when the order is the other way)."""
    tenancy, _, soft = _write(svc, [TENANCY + " Status: Superseded by ADR 24.", INGRESS,
                                    "ADR 24: Soft Multi-tenancy. Each programme shares a single GSP cluster."])
    assert svc.get(tenancy.id).superseded_by == soft.id
    later = svc.remember("ADR 26: Tenancy in CI. Superseded by ADR 27.", thread="gsp", created_at=T0 + timedelta(days=50))
    newer = svc.remember("ADR 27: Tenancy in CI is per programme.", thread="gsp", created_at=T0 + timedelta(days=60))
    assert svc.get(later.id).superseded_by == newer.id


def test_a_revision_under_the_same_title_and_a_revisited_title_link(svc):
    ingress, users, again, revisited = _write(svc, [
        INGRESS, "ADR 12: Use custom User model with separate UserProfile. Contact data lives on the profile.",
        "ADR025: Ingress. We currently have two ingress systems, Istio and nginx-ingress; we will use Istio.",
        "ADR 20: User models revisited, plus WHOIS. A Contact model stores name and contact data."])
    assert svc.get(ingress.id).superseded_by == again.id
    assert svc.get(users.id).superseded_by == revisited.id


def test_a_report_that_names_a_record_does_not_supersede_it_and_a_partial_claim_is_only_possible(svc):
    tenancy, ingress, report, amend = _write(svc, [
        TENANCY, INGRESS,
        "ADR 30: The outage of March: the incident showed the bug in the load-balancer that replaced ADR 4's clusters.",
        "ADR 31: Ingress for batch jobs. This amends ADR 5: batch jobs get an internal load-balancer."])
    assert svc.get(tenancy.id).superseded_by is None and report.updates is None
    assert svc.get(ingress.id).superseded_by is None and amend.updates is None
    with svc.db.read() as conn:
        maybe = svc.store.possible_updates(conn, [amend.id])[amend.id]
    assert [(p.older, p.probability) for p in (maybe if isinstance(maybe, (list, tuple)) else [maybe])] == [
        (ingress.id, 0.5)]


def test_adr_tools_records_link_by_their_status_links(svc):
    """adr-tools numbers a record "2. Use X" and writes its status as a Markdown link: the older record's "Superseded
    by [3. ...](0003-....md)" links it when record 3 is written; record 3's "Supersedes [2. ...]" as well."""
    first, second, third = _write(svc, [
        "1. Record architecture decisions. We will use Architecture Decision Records.",
        "2. Use Jenkins for CI. Status: Superseded by [3. Use GitHub Actions](0003-use-github-actions.md)",
        "3. Use GitHub Actions. Pipelines are workflow files in .github/workflows."])
    assert svc.get(second.id).superseded_by == third.id and svc.get(first.id).superseded_by is None
    fourth = svc.remember("4. Use Buildkite. Supersedes [3. Use GitHub Actions](0003-use-github-actions.md)",
                          thread="gsp", created_at=T0 + timedelta(days=40))
    assert fourth.updates == third.id


@pytest.mark.parametrize("text, bare", [
    ("ADR 18: React Context API.", True),
    ("ADR013: Building BOSH releases.", True),
    ("4. Static asset pipeline", True),
    ("ADR 6: Use the Custody API to access NOMIS data.", False),  # an imperative: the decision is the title
    ("ADR 5: Allocation API owns allocation data.", False),
    ("ADR 41: Konflux should send cloud events for all system events.", False),
    ("ADR 3: React: to build the dotcom rendering layer in React.", False),
    ("React Context API.", False),  # no record: a note, judged as any other
])
def test_a_record_of_a_number_and_a_title_stating_nothing_is_title_only(text, bare):
    assert references.title_only(text) is bare


def test_a_title_only_record_is_replaced_only_by_its_authors_claim(svc):
    """Issue 32 item 4: "ADR 18: React Context API." names a subject and states nothing of it; on public ADRs
    "Moving from React to Preact: ..." was linked to it as naming React. It links to the record stating the state
    (ADR 3), and a record that says it supersedes the bare title still replaces it."""
    react, context, preact = _write(svc, [
        "ADR 3: React: to build the dotcom rendering layer in React.", "ADR 18: React Context API.",
        "ADR 20: Moving from React to Preact: webpack aliases let preact/compat intercept react imports."])
    assert svc.get(context.id).superseded_by is None
    hooks = svc.remember("ADR 21: State with hooks. This supersedes ADR 18: context is replaced by hooks.",
                         thread="gsp", created_at=T0 + timedelta(days=40))
    assert hooks.updates == context.id


@pytest.mark.parametrize("text, series, number", [
    ("BIP 2: BIP process, revised.", "bip", 2), ("EIP-1283: Net gas metering for SSTORE.", "eip", 1283),
    ("CIP-15: Catalyst Registration Transaction Metadata Format.", "cip", 15), ("PEP 8: Style Guide.", "pep", 8),
])
def test_a_proposal_series_is_a_series_of_records(text, series, number):
    """Improvement and enhancement proposals number their records as decision records do (the session-38 public set:
    "BIP 2: ... replaces BIP 1" was no claim, "BIP 21: URI Scheme." no revision of "BIP 20: URI Scheme."). Three
    capitals ending in IP or EP; a word ("tip 3", "Step 2:") or a ticket ("SHOP-142:") is none."""
    assert references.numbered(text) == Reference(series, number)
    assert references.numbered("BIP 3: Updated process. It replaces BIP 2.").series == "bip"
    assert _said("BIP 3: Updated process: it replaces BIP 2 with a streamlined one.") == [("bip", 2, True, False)]
    for other in ("Step 2: run the migrations.", "STEP 2: run the migrations.", "tip 3: use a cache.",
                  "SHOP-142: the cart total is wrong."):
        assert references.numbered(other) is None, other
    assert references.same_title("BIP 20: URI Scheme.", "BIP 21: URI Scheme.")
    assert not references.same_title("BIP 20: URI Scheme.", "EIP 21: URI Scheme.")  # two series


def test_a_proposal_that_says_it_replaces_another_links_it(svc):
    one, two = _write(svc, ["BIP 1: Purpose and guidelines: a design document informs the community.",
                            "BIP 2: A stricter workflow for editors; this particular BIP replaces BIP 1."])
    assert two.updates == one.id and svc.get(one.id).superseded_by == two.id and "replaces BIP 1" in two.message


@pytest.mark.parametrize("earlier, later", [
    ("RFC 36: Concise Transaction Identifier.", "RFC 37: Concise Transaction Identifier (CTID)."),  # its initials
    ("ADR 3: Fee escalation.", "ADR 9: Fee escalation (Updated)."),
    ("ADR 3: Fee escalation.", "ADR 9: Fee escalation - Revised."),
    ("PEP 3153: Asynchronous IO support.", "PEP 3156: Asynchronous IO Support Rebooted."),
    ("ADR 3: Fee escalation.", "ADR 9: Fee escalation v2."),
    ("PEP 241: Metadata for Python Software Packages.", "PEP 314: Metadata for Python Software Packages 1.1."),
    ("PEP 248: Python Database API Specification v1.0.", "PEP 249: Python Database API Specification v2.0."),
    ("PEP 333: Python Web Server Gateway Interface v1.0.", "PEP 3333: Python Web Server Gateway Interface v1.0.1."),
])
def test_a_title_that_gains_a_revision_mark_a_version_or_its_initials_is_the_same_title(earlier, later):
    assert references.same_title(earlier, later)
    assert not references.same_title(later, earlier)


@pytest.mark.parametrize("earlier, later", [
    ("ADR 3: Storage.", "ADR 4: Storage (S3)."),  # a parenthesis naming another thing: two things
    ("ADR 3: Storage.", "ADR 4: Storage (SSD)."),
    ("ADR 3: Logging.", "ADR 4: Logging (frontend)."),  # a narrower record
    ("KEP 3514: Kubectl Explain OpenAPI.", "KEP 3515: Kubectl Explain OpenAPIv3."),  # a name, not a version
    ("CIP 9: Protocol Parameters (Shelley Era).", "CIP 28: Protocol Parameters (Alonzo Era)."),
    ("ADR 5: API v2.", "ADR 9: API v1."),  # an older version under a later number
    ("Step 3: Deploy.", "Step 4: Deploy v2."),  # numbered members of a list, no series
    ("ADR 3: Fee escalation.", "RFC 9: Fee escalation v2."),  # two series
])
def test_a_title_that_gains_another_words_is_another_record(earlier, later):
    assert not references.same_title(earlier, later)


def test_a_record_whose_title_gains_a_revision_mark_or_its_initials_links_the_earlier(svc):
    """The keyword search for the earlier record uses the title without what the revision added: the earlier title
    lacks "CTID", "2.0"."""
    ctid, other, again = _write(svc, [
        "RFC 36: Concise Transaction Identifier. A transaction is named by its ledger index and hash.",
        "RFC 40: Storage. Ledger history is kept on local disks.",
        "RFC 41: Concise Transaction Identifier (CTID). A transaction is named by 16 hex digits: ledger, index, "
        "network."])
    assert svc.get(ctid.id).superseded_by == again.id and svc.get(other.id).superseded_by is None
    s3 = svc.remember("RFC 42: Storage (S3). Ledger history is archived to S3 nightly.", thread="gsp",
                      created_at=T0 + timedelta(days=40))
    assert svc.get(other.id).superseded_by != s3.id  # a parenthesis naming another thing: no same-title link

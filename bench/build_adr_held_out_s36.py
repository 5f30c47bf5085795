"""Build bench/data/public_links/adr_projects_s36.json: session 36's held-out decision records for the update links.

    python bench/build_adr_held_out_s36.py          # writes the file (deterministic: same input, same bytes)

This file IS the transcription, made as bench/build_adr_held_out_s35.py's was (README.md beside the data, section
"Held out, session 36"), from eleven repositories no earlier set used:

* one memory per record: its number and title, and where the record was read its decision in the authors' words,
  trimmed to a sentence or two; where it was not read, its title alone (from its file name).
* `updates` are the pairs the authors marked (older first): a "Supersedes"/"Supercedes" line, a newer record that
  says it replaces, revisits or supersedes the older ("this supersedes all prior ADRs and PDRs regarding UEI"), or
  that names the older decision and states the one that now holds. Those whose newer record does not cite the older
  by number or title are listed again in `updates_unnamed`.
* `ambiguous` (counted neither way): a partial replacement ("supersedes some aspects of ADR-15"), an amendment, a
  restatement of the same state, or a later record that may or may not be about the older one's subject.
* `reports`: sentences of a record's context that report on a subject (a failure, a problem seen, a cost), dated the
  day before the record that cites them. Several are about the subject of an older standing decision (Bullet's
  disabled checks before "Remove Bullet gem"; ActiveRecord's poor fit before "use the Datamapper pattern instead"):
  a link from one of them is wrong.
* dates: the records' own where read; otherwise placed by number between the dates the same repository's records
  give (`ANCHORS` per project). Two repositories give none in the records read (arachne, identity-pki): their
  records are placed one a month by number from a stated start, so only their order is the authors'.

Every other link is wrong. Nothing here was run through the linker before the file was committed: the whole file
is held out (split `held-out-s36`), run once by the lead, never tuned on.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from functools import partial
from pathlib import Path

import adr_records  # bench/ is not a package: the shared helpers are imported from this folder
from adr_records import placed

OUT = Path(__file__).resolve().parent / "data" / "public_links" / "adr_projects_s36.json"
SPLIT = "held-out-s36"
project = partial(adr_records.project, SPLIT)


def monthly(start: str, number: int) -> str:
    """For a repository whose records read carry no date: record `number` placed 30 days after the one before."""
    return (date.fromisoformat(start) + timedelta(days=30 * (number - 1))).isoformat()


def titled(stem: str) -> str:
    """A record's title from its file stem: '0005-use-bullet-to-catch-nplus1-queries' -> 'Use bullet to catch
    nplus1 queries' (the words as the authors spelled them in the name, first letter capitalised)."""
    words = re.sub(r"^(adr-)?\d+-", "", stem).replace("_", " ").replace("-", " ").split()
    words = [w.upper() if w in ACRONYMS else w for w in words]
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


#: Words a file name lowercases that the records spell in capitals.
ACRONYMS = {"adr", "adrs", "api", "aws", "cdn", "ci", "csv", "drf", "dqt", "dttp", "ecr", "eks", "iac", "json", "nav",
            "oscal", "s3", "sam", "sqs", "trn", "ui", "uei", "ueis"}


def from_titles(prefix, label, folder, files, read, day_of, ext=".md"):
    """One record per (key, stem, commit) in `files`: the text read where `read` has it, else the record's number
    (`label` formatted with it, as the repository writes it) and its title."""
    records = []
    for key, stem, commit in files:
        number = int(re.match(r"\d+", key).group())
        if key in read:
            day, text, commit = read[key]
        else:
            day, text = None, f"{label.format(number)}: {titled(stem)}."
        records.append((f"{prefix}{key}", day or day_of(number), text, folder + stem + ext, commit))
    return records


# --- DFE-Digital/buy-for-your-school --------------------------------------------------------------------------
BFYS = "doc/architecture/decisions/"
BFYS_FILES = [  # the latest numbering (records renumbered once are listed under their later number only)
    ("001", "0001-record-architecture-decisions", "a48844110eeb7a73a031cabc4d327ecbd6df73e0"),
    ("002", "0002-use-pull-request-templates", "830bf21ed36d4ca63c83da993efbb7e50fbe5889"),
    ("003", "0003-use-standard-rb", "830bf21ed36d4ca63c83da993efbb7e50fbe5889"),
    ("004", "0004-use-a-changelog-for-tracking-changes-in-a-release", "c207455436e8fd139213fe3dba8f1d3e552117a8"),
    ("005", "0005-use-bullet-to-catch-nplus1-queries", "ccd81c16c20be61426d9edaf7120e8e000560899"),
    ("006", "0006-use-dotenv-for-managing-environment-variables", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    ("007", "0007-add-rollbar-for-application-monitoring", "6a279b86639e8ceb5b85adb68587317f82f7572f"),
    ("008", "0008-use-brakeman-for-security-analysis", "a48844110eeb7a73a031cabc4d327ecbd6df73e0"),
    ("009", "0009-use-simplecov-to-monitor-code-test-coverage", "a48844110eeb7a73a031cabc4d327ecbd6df73e0"),
    ("010", "0010-use-redis-for-a-read-cache", "a48844110eeb7a73a031cabc4d327ecbd6df73e0"),
    ("011", "0011-use-sidekiq-for-asynchronous-tasks", "a48844110eeb7a73a031cabc4d327ecbd6df73e0"),
    ("012", "0012-create-infrastructure-on-gpaas-cloud-foundry-with-terraform",
     "c207455436e8fd139213fe3dba8f1d3e552117a8"),
    ("013", "0013-use-dfe-sign-in-as-auth-provider", "6a279b86639e8ceb5b85adb68587317f82f7572f"),
    ("014", "0014-use-logit-for-application-logs", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    ("015", "0015-store-user-activity-in-app", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    ("016", "0016-use-rubocop-govuk-for-code-linting", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    ("017", "0017-use-codeclimate-in-pipeline", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    ("018", "0018-use-notify-api-for-sending-emails", "51f690b1c4d6795e64554c82a965526d24c1feab"),
    ("019", "0019-use-loaf-for-breadcrumb-links", "752b16606714d4c2b002b9bfb847be3d413a4afd"),
    ("020", "0020-use-accessible-autocomplete-for-autocomplete-fields", "7959b4a551be5070aa64b6aac1692fd0556ae61c"),
    ("021", "0021-use-msgraph-for-email-integration", "892e262f7ad0a68ed1a41c9c65bbd6d889a9b750"),
    ("022", "0022-use-awsS3-for-storage-requirements", "77eef4a7439e62b36e6ce622e69519de3e807867"),
    ("023", "0023-use-scenic-to-manage-database-views", "df68f24d30aff3b7b1bbba1270e3f69ffa0c78bd"),
    ("024", "0024-use-aasm-to-manage-support-case-state", "755acf8faf79ec8bce504e84bda67db46dd5e5ae"),
    ("025", "0025-use-i18n-tasks-to-manage-missing-translations", "83520a661f0fd477a9b92ad27f9f062592ad833f"),
    ("026", "0026-use-semantic-logger-to-make-logs-more-readable", "83520a661f0fd477a9b92ad27f9f062592ad833f"),
    ("027", "0027-use-flipper-to-manage-feature-flags", "83520a661f0fd477a9b92ad27f9f062592ad833f"),
    ("028", "0028-use-clamav-to-scan-email-attachments", "85c4e39afa008bf048a7af074dc7e5ea6b18db01"),
    ("029", "0029-use-tinymce-to-compose-rich-text-emails", "9216e613a98b85cfa139c2e2cc6676816771a843"),
    ("030", "0030-use-knapsack-to-run-tests-in-parallel", "9216e613a98b85cfa139c2e2cc6676816771a843"),
    ("031", "0031-use-crawlerdetect-to-ignore-bots-when-tracking-user-journeys",
     "83520a661f0fd477a9b92ad27f9f062592ad833f"),
    ("032", "0032-remove-bullet-gem", "ccd81c16c20be61426d9edaf7120e8e000560899"),
    ("033", "0033-use-rollbar-for-error-monitoring", "4b52966b4896af2be363a6ca5e2562926d44695f"),
    ("034", "0034-upgrade-postgresql", "14009a2933b7aeed04448c9dab48633bb891253e"),
    ("035", "0035-use-a-script-to-vendor-govuk-publishing-assets", "bf79d95fba22e9af0337df21076d3c7121a8de2e"),
    ("036", "0036-use-azure-ai-search-for-solution-search", "75290a39e91c821ccafed28a7691e8c47710078b"),
    ("037", "0037-remove-vcr-gem-and-cassettes", "5b07f93ed860b0e7bd6f0594fd3a2bcbb2da8490"),
]
BFYS_READ = {
    "007": ("2019-09-20", "ADR 7: Add Rollbar for application monitoring: use Rollbar to collect and manage our "
            "application errors.", "4c8dd1c3358b9a8a7b7599795396af408fa25934"),
    "012": ("2021-03-09", "ADR 12: Create infrastructure on GPaaS Cloud Foundry with Terraform: move the service from "
            "Heroku to GPaaS for all environments except the pull request review apps, and define the infrastructure "
            "in Terraform.", "4c8dd1c3358b9a8a7b7599795396af408fa25934"),
    "009": ("2020-10-09", "ADR 9: Use Simplecov to monitor code test coverage: use Simplecov with RSpec to monitor "
            "coverage changes on every test run.", "8ce0b14bf1e8712ed70030b063c57ae0175a40a1"),
    "014": ("2021-04-19", "ADR 14: Use Logit for application logs: aggregate the application logs in Logit, DfE "
            "Digital's preferred logging service.", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    "017": ("2021-06-28", "ADR 17: Use CodeClimate in the pipeline: CodeClimate is an additional level of quality "
            "assurance on our pull requests.", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    "018": ("2021-08-26", "ADR 18: Use Notify API for sending emails: GOV.UK Notify, through the "
            "notifications-ruby-client library, sends the service's emails.", "51f690b1c4d6795e64554c82a965526d24c1feab"),
    "036": ("2026-07-15", "ADR 36: Use Azure AI Search for solution search: Azure AI Search replaces the "
            "Elasticsearch/OpenSearch solution search; category search stays on Contentful.",
            "75290a39e91c821ccafed28a7691e8c47710078b"),
    "016": ("2021-06-23", "ADR 16: Use rubocop-govuk for code linting: change from Standard.rb, a wrapper around "
            "Rubocop, to the GOV.UK maintained version, rubocop-govuk.", "4521ab8cc540008b767f26db5a00d627c577c34d"),
    "032": ("2024-12-15", "ADR 32: Remove Bullet gem: remove the Bullet gem and all associated configuration; rely "
            "on production monitoring to identify N+1 queries.", "ccd81c16c20be61426d9edaf7120e8e000560899"),
    "033": ("2026-03-13", "ADR 33: Use Rollbar for error monitoring: use Rollbar (free tier) for application error "
            "monitoring, with email and Microsoft Teams notifications to alert the team when errors occur.",
            "4b52966b4896af2be363a6ca5e2562926d44695f"),
    "037": ("2026-07-15", "ADR 37: Remove VCR gem and cassette fixtures: remove the vcr gem, its setup and the recorded "
            "cassettes, and replace the affected specs with explicit stubs and local doubles of the Contentful data.",
            "5b07f93ed860b0e7bd6f0594fd3a2bcbb2da8490"),
}


def buy_for_your_school():
    anchors = {7: "2019-09-20", 9: "2020-10-09", 12: "2021-03-09", 14: "2021-04-19", 16: "2021-06-23",
               17: "2021-06-28", 18: "2021-08-26", 32: "2024-12-15", 33: "2026-03-13", 34: "2026-03-16",
               36: "2026-07-15", 37: "2026-07-15"}
    records = from_titles("b", "ADR {}", BFYS, BFYS_FILES, BFYS_READ, lambda n: placed(anchors, n))
    reports = [
        ("r_b032", "b032", "Bullet: the gem was effectively disabled in rails_helper.rb before each test, a growing "
                           "safelist of exceptions accumulated, and many specs were marked bullet: :skip.",
         BFYS + "0032-remove-bullet-gem.md", "ccd81c16c20be61426d9edaf7120e8e000560899"),
        ("r_b033", "b033", "Error monitoring: we were unable to get access to a Sentry account, and Azure Application "
                           "Insights does not provide the level of error detail we need.",
         BFYS + "0033-use-rollbar-for-error-monitoring.md", "4b52966b4896af2be363a6ca5e2562926d44695f"),
        ("r_b037", "b037", "VCR cassette fixtures made the test suite harder to understand, and tests became brittle "
                           "when the Contentful payload shape changed.",
         BFYS + "0037-remove-vcr-gem-and-cassettes.md", "5b07f93ed860b0e7bd6f0594fd3a2bcbb2da8490"),
        ("r_b036", "b036", "Solution search is tied to a separate search service on the Bonsai add-on of legacy Heroku "
                           "infrastructure, which limits improvements in search relevance.",
         BFYS + "0036-use-azure-ai-search-for-solution-search.md", "75290a39e91c821ccafed28a7691e8c47710078b"),
    ]
    return project(
        "buy-for-your-school", "DFE-Digital/buy-for-your-school",
        "MIT (LICENCE, c183111f: Crown Copyright, Department for Education)", True,
        BFYS + "0001-0037, the latest numbering (earlier numbers of renumbered records, and two other records once "
        "numbered 0020, left out); 0007, 0009, 0012, 0014, 0016, 0017, 0018, 0032, 0033, 0036, 0037 read (0034's "
        "date read), the others' titles from their file names",
        records, reports,
        updates=[("b005", "b032"), ("b003", "b016")],  # "Supersedes [ADR-0005]"; "Supercedes [3. Use Standard]"
        ambiguous=[("b007", "b033")])  # Rollbar chosen again for error monitoring: a restatement, or a return


# --- UKGovernmentBEIS/regulated-professions-register ------------------------------------------------------------
RPR = "doc/architecture/decisions/"
RPR_FILES = [
    ("001", "0001-record-architecture-decisions", "ed82e68909a7f96bfbc641e9c652c9b2de3c2f3d"),
    ("002", "0002-use-nestjs-as-our-application-framework", "db07174775945d67c947e395eae7a6a7acc12178"),
    ("003", "0003-use-typescript", "db07174775945d67c947e395eae7a6a7acc12178"),
    ("004", "0004-use-eslint", "db07174775945d67c947e395eae7a6a7acc12178"),
    ("005", "0005-use-cypress-for-end-to-end-testing", "db07174775945d67c947e395eae7a6a7acc12178"),
    ("006", "0006-use-typeorm", "db07174775945d67c947e395eae7a6a7acc12178"),
    ("007", "0007-use-a-changelog-for-tracking-changes-in-a-release", "b5a12617da42221ff6bc49e21ec92674c69b2bd0"),
    ("008", "0008-use-prettier-to-format-typescript-code", "db07174775945d67c947e395eae7a6a7acc12178"),
    ("009a", "0009-represent-data-structures-in-a-relational-database", "0a46981b0e5f342ec46a80a4b484672c0fa0be56"),
    ("009b", "0009-use-the-activerecord-pattern-in-typeorm", "6ca33819b402f57cac940a82241d9a7598797fd5"),
    ("010", "0010-use-the-datamapper-pattern-instead-of-activerecord", "1841150d07d981e3125a1372f13b57cf70fc098a"),
    ("011", "0011-use-auth0-for-authentication", "3b2314840d51d24ac0ae5383fbd2418ea9dc4e19"),
    ("012a", "0012-deploy-to-production-when-a-new-tag-has-been-pushed", "a16f612d31d964a1299b997ec2f5fa14b5428837"),
    ("012b", "0012-enable-many-to-many-links-between-professions-and-regulators",
     "4717797db83878795f0c3d94e39a749ce47e81dd"),
    ("013", "0013-use-bull-and-redis-to-send-emails", "edf2905106611020e2b4dd6dbde2012de899644c"),
    ("014", "0014-manage-versioning-with-a-versions-table", "57f6808a0726f6dabe298c20a145feb8d406febd"),
    ("015", "0015-use-versions-to-store-versioned-entity-data", "ae2d89759dc3563b708edbbdfa3c3311777dbc2c"),
    ("016", "0016-add-cdn-route", "c38fb1bfc2cf48c8bc1f82a0797c37e85ab5bd68"),
    ("017", "0017-use-opensearch-to-search-professions", "b6a3c01b051228dba2306578b1698934620bf67f"),
    ("018", "0018-use-data-migrations", "15fba10cb0b7da2ae60a05def3626e56a8c46992"),
    ("019", "0019-use-json-for-decision-data", "ae5a2f668953f6f91d228003a1d0b10575e28d94"),
]
RPR_READ = {
    "009a": ("2021-11-18", "ADR 9: Represent data structures in a relational database: Competent Authorities map to "
             "an Organisation and Regulated Professions to a Profession, in a one-to-many relationship.",
             "0a46981b0e5f342ec46a80a4b484672c0fa0be56"),
    "012b": ("2021-12-09", "ADR 12: Enable many-to-many links between professions and regulators: a Profession has many "
             "Regulations, each valid in an area and a time and owned by one or many Organisations.",
             "168b8e801fae73c359e31ba8407d406b646ae9fa"),
    "019": ("2022-04-05", "ADR 19: Use JSON for decision data: each profession's decision data, per regulator and "
            "year, is stored as a JSON string holding the decisions of each route and country.",
            "ae5a2f668953f6f91d228003a1d0b10575e28d94"),
    "010": ("2021-11-19", "ADR 10: Use the Datamapper pattern instead of ActiveRecord: we adopt the Datamapper pattern "
            "for TypeORM models, with queries in service objects that have the repository injected, to make testing "
            "easier and follow the NestJS way.", "1841150d07d981e3125a1372f13b57cf70fc098a"),
    "015": ("2022-01-25", "ADR 15: Use versions to store versioned entity data: store most of an entity's information in "
            "the version table itself, keeping only the name, the slug (and a profession's organisation) in the "
            "entity table.", "ae2d89759dc3563b708edbbdfa3c3311777dbc2c"),
}


def regulated_professions():
    anchors = {9: "2021-11-18", 10: "2021-11-19", 12: "2021-12-09", 15: "2022-01-25", 19: "2022-04-05"}
    records = from_titles("r", "ADR {}", RPR, RPR_FILES, RPR_READ, lambda n: placed(anchors, n))
    reports = [
        ("r_r010", "r010", "TypeORM's ActiveRecord pattern is not a good fit for NestJS, which makes heavy use of "
                           "dependency injection.",
         RPR + "0010-use-the-datamapper-pattern-instead-of-activerecord.md", "1841150d07d981e3125a1372f13b57cf70fc098a"),
        ("r_r015", "r015", "Versioning: copying versioned entities means slugs can no longer be indexed uniquely, which "
                           "causes problems creating new entities and fetching entities by slug.",
         RPR + "0015-use-versions-to-store-versioned-entity-data.md", "ae2d89759dc3563b708edbbdfa3c3311777dbc2c"),
    ]
    return project(
        "regulated-professions", "UKGovernmentBEIS/regulated-professions-register",
        "MIT (LICENSE, b7c09471: Department of Business, Energy and Industrial Strategy)", True,
        RPR + "0001-0019 (two records numbered 0009 and two numbered 0012, each kept); 0009 (relational), 0010, "
        "0012 (many-to-many), 0015, 0019 read, the others' titles from their file names",
        records, reports,
        # 0010 names "9. Use the ActiveRecord Pattern in TypeORM" and decides the Datamapper pattern instead; 0015
        # names #14's versions tables and iterates the data model away from it; 0012 "supercedes the design
        # presented in ADR 9: Represent data structures in a relational database"
        updates=[("r009b", "r010"), ("r014", "r015"), ("r009a", "r012b")])


# --- nationalarchives/tdr-dev-documentation ---------------------------------------------------------------------
TDR = "architecture-decision-records/"
TDR_FILES = [
    ("001", "0001-multi-account-terraform", "78a977854176a987032382a5db268768406c6e13"),
    ("002", "0002-versioning-and-deployments", "cd108e0fd0cabf41de0f361134fd6970ebdd0017"),
    ("003", "0003-frontend-framework", "b19123822a5ca2704c18e61bcf33f781568f71d5"),
    ("004", "0004-api-structure", "b19123822a5ca2704c18e61bcf33f781568f71d5"),
    ("005", "0005-user-authentication", "f12c20897dd6c8b8327cf46ba8a753e489175077"),
    ("006", "0006-user-data-model", "78a977854176a987032382a5db268768406c6e13"),
    ("007", "0007-s3-user-access-to-objects", "40cfb43d072e8a63235a7511c8fa4f96a09fe704"),
    ("008", "0008-keycloak-user-administrators-configuration", "4873266731000bc850b829c9a3e9396b240772a7"),
    ("009", "0009-keycloak-user-administrators-configuration", "30ed280330b2ce3994cd5f600ed54cf98c5cbccf"),
    ("010", "0010-file-format-identification-software", "f12c20897dd6c8b8327cf46ba8a753e489175077"),
    ("011", "0011-base25-encoding-for-consignment-reference", "9dbdc6d5a8ed57f85c1d53fb1285e056c04846b7"),
    ("012", "0012-keycloak-email-provider", "8222a30b1234858e26fc61b7c75b3de7bcec845c"),
    ("013", "0013-file-check-queues-and-lambdas", "3bbb37cbb4f284501a953e396bfb3179036d48ae"),
    ("014", "0014-govuk-notify-service-configuration", "f33a901cc0daac14e8f6783f2950c92cd09d4bdf"),
    ("015", "0015-govuk-notify-staging-configuration", "f12c20897dd6c8b8327cf46ba8a753e489175077"),
    ("016", "0016-govuk-notify-local-development-stack", "8a02ebbc087b58b7c9d17478d4ae8353abf2afeb"),
    ("017", "0017-govuk-notify-keycloak-message", "8a02ebbc087b58b7c9d17478d4ae8353abf2afeb"),
    ("018", "0018-govkuk-notify-staging-configuration", "1bf305ac86f7b0851530e248293af9c4fdc8fafc"),
    ("019", "0019-remove-frontend-messages-file", "93e3a6b943abdec96b67d49409ca1007ec738196"),
    ("020", "0020-sqs-visibility-timeout", "4f9cc9e0e0eb79d88971b3a5084ca0362ff596e2"),
    ("021", "0021-service-unavailable-page", "7ed459cebb329d1614791b835fb68456af81d4b1"),
    ("022", "0022-cloudfront-upload-proxy", "fa4d62c4808f3dc96085f1aed467c60108879fa0"),
    ("023", "0023-judgment-transfer-urls-scheme", "4b666629a91da3f49f32897e2b4609cd066b06e2"),
    ("024", "0024-continuous-integration-service", "f8672ecbc8c7a41e07c50773b8d0aae55f5239f2"),
    ("025", "0025-automatic-code-merge", "f8672ecbc8c7a41e07c50773b8d0aae55f5239f2"),
    ("026", "0026-temporary_series_workflow", "1754ad400391c787a174d495669319b7c853608e"),
    ("027", "0027-step-functions-for-backend-checks", "7590b60091129fee435926073e52b1a58eafc4a3"),
    ("028", "0028-storybook-for-tdr-components-library", "3e6e6f9ad0997581a9e26fa7ae2e4ef8aee4d80b"),
    ("029", "0029-x-ray-for-request-monitoring", "e32ac4d722546f6075a92c2278023706ac5c41c5"),
    ("030", "0030-metadata-input-validation", "e0ef130584c6316d71a67620596f2385afa08ee1"),
    ("031", "0031-excel-generation-library", "a37400310592a61d605f954a09a5a6e60dfacdb5"),
    ("032", "0032-hosting-service-integrations", "71e11ca3253052cbe8ff9be61f1166fbccea6cf7"),
    ("033a", "0033-dta-review-user-permissions", "d273311a49d5f8f0c3c2f7743002ed7115347b15"),
    ("033b", "0033-handling-sharepoint-metadata", "a5806688573b0cec883bc2aaf7d8bca3a993851d"),
    ("034", "0034-metadata-validation", "27c544b31e44c3708617ebf0ba860a21632b3efe"),
    ("035", "0035-metadata-csv-utf-8-file-validation", "88e9e38fccb9a3b87ac0bf48426a068891cd225e"),
    ("036", "0036-metadata-rendering-configuration", "957dd78962e1eeaea3113f7cc262c02fd310f7ef"),
    ("037", "0037-disable-inactive-keycloak-users", "9103ee99fca748b32ba1b27c1fbcdc00a5068308"),
    ("038", "0038-egress-control", "4ac63bbe59660a8cb199c24d5392c8700ba24439"),
    ("039", "0039-observability", "8b0a9acd823c8b57b99299ed16130e559c303754"),
    ("040", "0040-utf-8-and-windows-cp-validation", "2b2ea1807fc04ea3ad09c5365badeeb2b4f82360"),
]
TDR_READ = {
    "002": ("2020-02-21", "ADR 2: Versioning and deployments: when code is merged to master and the tests pass, Jenkins "
            "tags a version from its build number, pushes the Docker image, deploys to integration, and a developer "
            "releases the same version to staging then production.", "cd108e0fd0cabf41de0f361134fd6970ebdd0017"),
    "007": ("2020-04-01", "ADR 7: Restricting user access to S3 objects: use AWS Cognito, with Keycloak as an OpenId "
            "authentication provider, and an IAM policy restricting each user to their own objects in the upload "
            "bucket.", "40cfb43d072e8a63235a7511c8fa4f96a09fe704"),
    "012": ("2020-11-16", "ADR 12: Keycloak email provider: GovUK Notify is the email provider for Keycloak's user "
            "emails (password updates and other user actions).", "8222a30b1234858e26fc61b7c75b3de7bcec845c"),
    "014": ("2021-04-08", "ADR 14: GovUK Notify service configuration: each TDR environment has its own GovUK Notify "
            "service; the staging Notify service is to be live for user testing; the full Keycloak message is passed "
            "into the Notify template.", "345caa0a23b47c7109e7f325d91c8c2f0901871f"),
    "015": ("2021-04-08", "ADR 15: GovUK Notify staging service made live: the staging GovUK Notify service is to be "
            "live, to allow user testing and mirror production.", "2188e1c40f36ec1507f0b7b03720d493e7b94766"),
    "020": ("2021-07-05", "ADR 20: Increase message visibility timeout in file check queues: set each file check "
            "queue's visibility timeout to 3 times its Lambda's timeout, reset it to 0 on failure, and use a batch size "
            "of 1.", "4f9cc9e0e0eb79d88971b3a5084ca0362ff596e2"),
    "021": ("2021-07-14", "ADR 21 (headed 20): Service unavailable page: switch the load balancer's target group to a "
            "Python Lambda that renders a static service unavailable page, by hand, when needed.",
            "05fa2347bc565d935838b81c01c9aa113f381acc"),
    "022": ("2021-09-17", "ADR 22: Proxy S3 uploads through CloudFront: uploads go to an upload domain on CloudFront, "
            "which sends them to the S3 upload bucket, authorised by CloudFront signed cookies that a Lambda "
            "generates.", "fa4d62c4808f3dc96085f1aed467c60108879fa0"),
    "024": ("2022-03-15", "ADR 24: Continuous integration service: move from Jenkins to GitHub Actions to test, build "
            "and deploy our code.", "7b37715e55e18d680c7441b645518021eba90004"),
    "027": ("2023-01-18", "ADR 27 (headed 26): Step functions for backend checks: the backend checks (antivirus, "
            "checksum, file format) run in a step function once per consignment, triggered through API Gateway.",
            "7590b60091129fee435926073e52b1a58eafc4a3"),
    "029": ("2023-05-19", "ADR 29: AWS X-Ray for request monitoring: trace requests with AWS X-Ray, sent through the "
            "AWS Distro for OpenTelemetry collector.", "ad3d2ee4e81084cdf9e16c4e5e4f82d72bc6ba24"),
    "030": ("2023-08-14", "ADR 30 (headed 4): Metadata input validation: use a validation library, shared by the form, "
            "the CSV upload and the consignment API, that checks input data against the metadata criteria.",
            "21c393e626e8b62853f1b8f996222339cad9e575"),
    "034": ("2024-09-03", "ADR 34: Metadata validation: a hybrid approach, automated validation against public JSON "
            "schemas with manual validation for exceptional cases; errors are saved as JSON in S3 for the user.",
            "07f9aaa2678116ee8d7419c9d9b8d7439b59ca05"),
    "035": ("2024-10-21", "ADR 35: Metadata CSV file UTF-8 validation: check for the byte order mark Excel writes at "
            "the start of a CSV saved as UTF-8.", "88e9e38fccb9a3b87ac0bf48426a068891cd225e"),
    "036": ("2024-11-01", "ADR 36: Metadata render configuration: the rules for rendering metadata are kept in a JSON "
            "configuration file published as a library, instead of a database table.",
            "957dd78962e1eeaea3113f7cc262c02fd310f7ef"),
    "039": ("2026-03-06", "ADR 39: Observability: alarms are forwarded through an EventBridge alarms bus to Slack and "
            "defined in Terraform; dashboards and alerts move to CloudWatch and the managed Grafana instance is "
            "terminated.", "0731ef2431e65e987a4e99ee69b9a6b73bd76359"),
    "009": ("2020-07-21", "ADR 9: Keycloak user administrators configuration: TDR user administrators are configured in "
            "the TDR realm instead of the top-level Keycloak realm, through a group with the role mappings needed, "
            "with alerts on any user added to it.", "30ed280330b2ce3994cd5f600ed54cf98c5cbccf"),
    "016": ("2021-04-08", "ADR 16: Local development stack for GovUK Notify: no full local development stack for "
            "GovUK Notify, as it does not interact with other TDR systems.", "8a02ebbc087b58b7c9d17478d4ae8353abf2afeb"),
    "017": ("2021-04-08", "ADR 17: Passing Keycloak message parameters to GovUK Notify: the entire Keycloak message is "
            "passed into the Notify template through the keycloakMessage personalisation parameter.",
            "8a02ebbc087b58b7c9d17478d4ae8353abf2afeb"),
    "018": ("2021-04-22", "ADR 18: GovUK Notify staging service: it was decided not to go live with the GovUK Notify "
            "staging service, on the Notify team's advice; it stays in trial mode, with UAT users added to its guest "
            "list.", "1bf305ac86f7b0851530e248293af9c4fdc8fafc"),
    "032": ("2024-06-07", "ADR 32: Hosting service integrations: the code supporting transfers from other sources "
            "(SharePoint, Google Drive, hard drives) is hosted on a new AWS ECS task within TDR's existing VPC.",
            "71e11ca3253052cbe8ff9be61f1166fbccea6cf7"),
    "040": ("2026-06-12", "ADR 40: UTF-8 and Windows-1252 validation: replace the utf8-validator library with a custom "
            "implementation on Java's built-in CharsetDecoder for UTF-8 validation, with a Windows-1252 fallback.",
            "2b2ea1807fc04ea3ad09c5365badeeb2b4f82360"),
}


def tdr():
    anchors = {2: "2020-02-21", 7: "2020-04-01", 9: "2020-07-21", 12: "2020-11-16", 14: "2021-04-08",
               15: "2021-04-08", 18: "2021-04-22", 20: "2021-07-05", 21: "2021-07-14", 22: "2021-09-17", 24: "2022-03-15",
               27: "2023-01-18", 29: "2023-05-19", 30: "2023-08-14", 32: "2024-06-07", 34: "2024-09-03", 35: "2024-10-21",
               36: "2024-11-01", 39: "2026-03-06", 40: "2026-06-12"}
    records = from_titles("t", "ADR {}", TDR, TDR_FILES, TDR_READ, lambda n: placed(anchors, n))
    reports = [
        ("r_t009", "t009", "Keycloak: importing the top-level realm json configuration at docker container start up "
                           "wiped any existing users.",
         TDR + "0009-keycloak-user-administrators-configuration.md", "30ed280330b2ce3994cd5f600ed54cf98c5cbccf"),
        ("r_t040", "t040", "The utf8-validator library reads one byte per call: about 5 billion read calls for a 5 GB "
                           "file, about 12 minutes for five 5 GB files on Lambda.",
         TDR + "0040-utf-8-and-windows-cp-validation.md", "2b2ea1807fc04ea3ad09c5365badeeb2b4f82360"),
        ("r_t020", "t020", "File checks: uploading more than a few hundred files overloads the API, and some messages "
                           "land on the failure queue even when the Lambda eventually succeeded.",
         TDR + "0020-sqs-visibility-timeout.md", "4f9cc9e0e0eb79d88971b3a5084ca0362ff596e2"),
        ("r_t022", "t022", "Uploads: some TDR users are on restricted networks where the upload step fails completely: "
                           "calls to TDR domains succeed but those to amazonaws.com are blocked.",
         TDR + "0022-cloudfront-upload-proxy.md", "fa4d62c4808f3dc96085f1aed467c60108879fa0"),
        ("r_t024", "t024", "Jenkins runs on an EC2 instance with several Docker images and plugins that each need "
                           "updating, which takes a lot of time, and its Fargate build nodes are slow to start.",
         TDR + "0024-continuous-integration-service.md", "7b37715e55e18d680c7441b645518021eba90004"),
        ("r_t027", "t027", "Backend checks: with the queue-driven process, a small judgment consignment uploaded after a "
                           "large consignment waits for it to finish, which may take several hours.",
         TDR + "0027-step-functions-for-backend-checks.md", "7590b60091129fee435926073e52b1a58eafc4a3"),
        ("r_t036", "t036", "Metadata rendering rules stored in the DisplayProperties table are hard to extend, invisible "
                           "to stakeholders, and need extra database calls whenever metadata is rendered.",
         TDR + "0036-metadata-rendering-configuration.md", "957dd78962e1eeaea3113f7cc262c02fd310f7ef"),
        ("r_t039", "t039", "Our AWS Managed Grafana instance has never really gained traction in the team and has "
                           "little use; its dashboards and alerts are all hand-cranked.",
         TDR + "0039-observability.md", "0731ef2431e65e987a4e99ee69b9a6b73bd76359"),
    ]
    return project(
        "tdr", "nationalarchives/tdr-dev-documentation",
        "MIT (LICENCE, b3ab58ce: Crown Copyright, The National Archives; the MIT text)", True,
        TDR + "0001-0040 (two records numbered 0033 kept; of the files renamed or renumbered -- 0014, 0031, 0035 -- "
        "one kept per number); 0002, 0007, 0009, 0012, 0014, 0015, 0016, 0017, 0018, 0020, 0021, 0022, 0024, 0027, 0029, 0030, "
        "0032, 0034, 0035, 0036, 0039, 0040 read, the others' titles from their file names",
        records, reports,
        # "This decision supersedes decision: 0008 / 0015"; 0007 "has been superseded by decision: 0022"; 0027
        # moves the backend checks from the SNS/SQS-driven lambdas of 0013 to step functions without citing it
        updates=[("t008", "t009"), ("t015", "t018"), ("t007", "t022"), ("t013", "t027")],
        unnamed=[("t013", "t027")],
        # 0015, 0016 and 0017 restate three of 0014's decisions; 0018 reverses that one part of 0014; 0024 replaces Jenkins, one part
        # of 0002; 0034 and 0030 both settle metadata validation. (0035 checks a CSV's byte order mark, 0040 replaces
        # a library for file checks: two things, and 0035 had rejected that library -- a link between them is wrong.)
        # 0020 amends the queues of 0013 (it cites "ADR 13")
        ambiguous=[("t014", "t015"), ("t014", "t016"), ("t014", "t017"), ("t014", "t018"), ("t002", "t024"), ("t030", "t034"), ("t013", "t020")])


# --- GSA-TTS/FAC (Federal Audit Clearinghouse) ------------------------------------------------------------------
FAC = "docs/architecture/decisions/"
FAC_FILES = [  # the numbering after PDRs and ADRs were merged (30f25859); one record per number, two for 0046
    ("001", "0001-record-architecture-decisions", "06879c4ab74b506ad4dbc316dc2dd475fc3b13f2"),
    ("002", "0002-c4-plantuml-diagrams", "b9d3b1a11639a1b75f326b92dfa6ae4f24abee5a"),
    ("003", "0003-initial-architecture", "7078b67618ff39c39e3b75ee7c4205fbebc1a8db"),
    ("004", "0004-use-drf-for-the-api", "1fdc167894c39fb4472fbe67c63e71928a39b629"),
    ("005", "0005-record-product-decisions", "69e7d11a7f88076415dadc2ae56ffc86b80c6f79"),
    ("006", "0006-uei", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("007", "0007-use-github-actions-for-ci", "69e7d11a7f88076415dadc2ae56ffc86b80c6f79"),
    ("008", "0008-public-repos", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("009", "0009-use-11ty-for-the-frontend", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("010", "0010-use-sam-api-for-uei-validation", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("011", "0011-bulk-data-uploads", "8b8f32538ced8b5aba4b90fcb701bfeafdd8f6b0"),
    ("012", "0012-migration-plan", "d93e20e143601c974e16d510196929b3fe8c8382"),
    ("013", "0013-submission-statuses", "9a4080fe45b9187607e80bc7accbb6909ad4ff48"),
    ("014", "0014-compliance-documentation", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("015", "0015-certify-audit-submission-path", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("016", "0016-file-uploads", "d93e20e143601c974e16d510196929b3fe8c8382"),
    ("017", "0017-excel-generation-validation", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("018", "0018-uei-and-missing-data", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("019", "0019-use-alpine-for-additional-interactivity", "d93e20e143601c974e16d510196929b3fe8c8382"),
    ("020", "0020-store-question-copy-as-json", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("021", "0021-switch-to-unified-django-web-app", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("022", "0022-use-iac-for-environment-access", "31c4b7d0569c1e00c8f1989e58f085c671db0042"),
    ("023", "0023-store-submission-data-as-json", "8b54e8d1c000cd585bbc441595f66db46a8f6e81"),
    ("024", "0024-store-uploaded-excel-files", "ca98a1f57b7fc1a6cbad58039ed822800614bd46"),
    ("026", "0026-samgov-integration", "d93e20e143601c974e16d510196929b3fe8c8382"),
    ("027", "0027-jsonnet-schema", "d93e20e143601c974e16d510196929b3fe8c8382"),
    ("028", "0028-uei-required", "ee4a028e2730457958eb298bfb92cc7d188d9d3c"),
    ("029", "0029-change-adr-process", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("030", "0030-tribal-audit-permissions", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    ("031", "0031-user-access-management", "17c69a53a914dbadfab4de5388b679fd543fa9c0"),
    ("032", "0032-track-deletion-with-other-models", "43b9245b0a1693d6ddfa99d18a099bc9db9fac4b"),
    ("033", "0033-access-based-on-email-address", "0e9e649207eb20ca18081d6a39f277fc44e99bd3"),
    ("034", "0034-handling-invalid-audit-report-during-migration", "a274e7cd050762b01adb6b4c1a0449d6be7719a6"),
    ("035", "0035-migrating-data-from-census-to-gsa", "5fb476428d986f8a197ace915b0de027c8261c50"),
    ("036", "0036-access-deletion", "4865b01c1b2f537cc30e6b059f699f5c799317db"),
    ("037", "0037-validation-waivers", "d397253c170c0b5d728ab2b06781c1a133664ffb"),
    ("038", "0038-data-migration", "ea82d9baa013a4206349cfde2f9c32febb3d6084"),
    ("039", "0039-data-migration-iterative-approach", "783001cd9a97a07e038f4e2985b96c499a092ef6"),
    ("040", "0040-data-migration-implementing-logging-and-transformation-tracking",
     "bef315ead5bfee972ea5ac478d8961369242ffb9"),
    ("041", "0041-in-progress-audit-deletion-workflow", "cdf4e3437226c6d8c4e5125e08362c35c37eb205"),
    ("042", "0042-gracefully-handle-samgov-4xx-errors", "05df6be759d7dd630997a77b130bddcf987e3693"),
    ("043", "0043-data-representation-iteration", "92b00c73da8a2ef6ca3af18c80b9c4b4a87e8b5e"),
    ("044", "0044-data-representation-migration-testing", "7f8cc67d21cca318666b50eeaf7cb2b9da593c5c"),
    ("045", "0045-multiple-eins-secondary-auditors-api-inconsistency", "a9067f60b59f7132f4805b109a3b2a8a7f00add3"),
    ("046a", "0046-convert-dissemination-conbined", "de994ee9499bada085a96d7bb2516e8c035697d0"),
    ("046b", "0046-signing-data", "ad4e46a0bf364eabaff612fa63daad0a4ce9853c"),
]
FAC_READ = {
    "011": ("2022-05-13", "ADR 11: How to handle bulk data uploads: ingest Excel templates similar to Census's, parse "
            "them with SheetJS, and represent them in its Common Spreadsheet Format.",
            "8b8f32538ced8b5aba4b90fcb701bfeafdd8f6b0"),
    "016": ("2022-08-01", "ADR 16: File uploads: follow the DOJ Civil Rights Portal's upload backend, store files in "
            "Amazon S3 through Boto3, and scan them with ClamAV; the frontend uses the USWDS file upload component.",
            "d93e20e143601c974e16d510196929b3fe8c8382"),
    "012": ("2022-05-13", "ADR 12: FAC migration plan: around 2023-04-01 the new TTS FAC goes live for audit year 2023 "
            "and the Census FAC stops accepting submissions; by 2023-10-01 all Census data is migrated and the Census "
            "FAC is taken off the internet.", "d93e20e143601c974e16d510196929b3fe8c8382"),
    "024": ("2023-02-06", "ADR 24: Store uploaded Excel files: uploaded workbooks are validated, stored in a private S3 "
            "bucket and available to every user of the submission; the last upload wins.",
            "ca98a1f57b7fc1a6cbad58039ed822800614bd46"),
    "026": ("2023-03-09", "ADR 26: SAM.gov integration for the MVP: a submitter's UEI is checked with the SAM.gov API "
            "when possible; if it cannot be checked, the UEI is recorded as not validated and the submission goes "
            "on.", "d93e20e143601c974e16d510196929b3fe8c8382"),
    "033": ("2023-11-20", "ADR 33: Make email address primary for Access: on login, every Access entry (claimed or not) "
            "for any of the user's login.gov email addresses is associated with the user.",
            "0e9e649207eb20ca18081d6a39f277fc44e99bd3"),
    "035": ("2024-05-24", "ADR 35: Migrating data from Census to GSA: migrate submission by submission through the FAC's "
            "own intake and validations, year by year from 2022 back to 2016, logging every change made to the data.",
            "5fb476428d986f8a197ace915b0de027c8261c50"),
    "036": ("2024-05-28", "ADR 36: Access deletion: Audit Editors may remove the Audit Editor role from others but not "
            "from themselves; Certifying Official roles cannot be removed without a replacement.",
            "4865b01c1b2f537cc30e6b059f699f5c799317db"),
    "042": (None, "ADR 42: Gracefully handle SAM.gov 4xx errors: if the SAM.gov API key works, UEI validations are "
            "upheld; if it fails, the UEI waiver process is used automatically and logged.",
            "05df6be759d7dd630997a77b130bddcf987e3693"),
    "019": ("2022-09-06", "ADR 19: Use Alpine for additional interactivity: use Eleventy's is-land plugin with Alpine "
            "JS for the frontend's interactive parts.", "d93e20e143601c974e16d510196929b3fe8c8382"),
    "020": ("2022-09-15", "ADR 20: Store question copy as JSON: the question copy is stored in one JSON file per year, "
            "mapping stable question ids to that year's text.", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    "023": ("2023-01-04", "ADR 23: Store submission data as JSON: the Single Audit Checklist is split into sections "
            "stored as JSON fields, each with a JSON Schema as the source of truth for its validation.",
            "8b54e8d1c000cd585bbc441595f66db46a8f6e81"),
    "027": ("2023-04-10", "ADR 27: Data validation schema in Jsonnet: the validation schemas are authored in Jsonnet, "
            "and the rendered JSON schemas are kept in the repository.", "d93e20e143601c974e16d510196929b3fe8c8382"),
    "031": ("2023-11-14", "ADR 31: User access management: three pages, to change the auditor certifying official, "
            "to change the auditee certifying official, and to add editors; removing editors is not supported.",
            "17c69a53a914dbadfab4de5388b679fd543fa9c0"),
    "021": ("2022-10-28", "ADR 21: Switch to a unified Django web application: move the frontend into Django, use "
            "Django to manage state, keep USWDS styling and components, and move to a single repository.",
            "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    "028": ("2023-05-31", "ADR 28: UEI required for submission: the UEI is required, and it must validate against "
            "SAM.gov for a submission to proceed; without a valid UEI the SF-SAC cannot be submitted.",
            "ee4a028e2730457958eb298bfb92cc7d188d9d3c"),
    "029": ("2023-11-06", "ADR 29: Use GitHub issues to start the ADR process: an ADR starts as an issue from a "
            "template, is discussed, and goes into the tree by pull request once accepted; ADRs for everything, no "
            "more PDRs.", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
    "039": ("2024-06-25", "ADR 39: Data migration, iterative approach: Census exports go to S3, are loaded into "
            "Postgres in chunks, and migrate report by report through the 2023 submission path, with data "
            "transformations added iteration by iteration and recorded.", "21948b09c17c260fa5005dd901975f3631d9968c"),
    "043": ("2025-04-30", "ADR 43: Data representation iteration: the FAC migrates its data to a single source of "
            "truth, one table holding each part of the submission as JSONB, used both for intake and for "
            "dissemination.", "92b00c73da8a2ef6ca3af18c80b9c4b4a87e8b5e"),
}


def fac():
    anchors = {11: "2022-05-13", 12: "2022-05-13", 16: "2022-08-01", 19: "2022-09-06", 20: "2022-09-15", 21: "2022-10-28",
               23: "2023-01-04", 24: "2023-02-06", 26: "2023-03-09", 27: "2023-04-10", 28: "2023-05-31",
               29: "2023-11-06", 31: "2023-11-14", 33: "2023-11-20", 35: "2024-05-24", 36: "2024-05-28", 39: "2024-06-25",
               43: "2025-04-30"}
    records = from_titles("f", "ADR {}", FAC, FAC_FILES, FAC_READ, lambda n: placed(anchors, n))
    reports = [
        ("r_f021", "f021", "Separate frontend and backend applications made multi-tab support difficult or impossible "
                           "and forced query parameters instead of nice URLs.",
         FAC + "0021-switch-to-unified-django-web-app.md", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
        ("r_f028", "f028", "UEI: in 2022 there was a substantial backlog of UEI requests; as of May 2023 SAM.gov takes "
                           "4 days on average to review one manually.",
         FAC + "0028-uei-required.md", "ee4a028e2730457958eb298bfb92cc7d188d9d3c"),
        ("r_f029", "f029", "We stopped using ADRs and PDRs over time without meaning to, and ADRs were left in the tree "
                           "without ever being accepted.",
         FAC + "0029-change-adr-process.md", "30f2585954e39e0f36b0345f470fe9bc6e626cf4"),
        ("r_f043", "f043", "With one table for intake and others for dissemination, a user's update must be tracked in "
                           "one place and propagated to two.",
         FAC + "0043-data-representation-iteration.md", "92b00c73da8a2ef6ca3af18c80b9c4b4a87e8b5e"),
        ("r_f031", "f031", "Many users enter incorrect email addresses for the certifying roles and only find out when "
                           "the submission is ready for certification; their only option is to start a new one.",
         FAC + "0031-user-access-management.md", "17c69a53a914dbadfab4de5388b679fd543fa9c0"),
        ("r_f033", "f033", "Users who delete their login.gov account and create a new one with the same email address "
                           "lose access to their submissions: the new account is not associated with them.",
         FAC + "0033-access-based-on-email-address.md", "0e9e649207eb20ca18081d6a39f277fc44e99bd3"),
        ("r_f042", "f042", "The SAM.gov system-to-system key must be renewed by hand every 90 days by one of at most "
                           "three registered people; if it lapses, the FAC cannot create new audits.",
         FAC + "0042-gracefully-handle-samgov-4xx-errors.md", "05df6be759d7dd630997a77b130bddcf987e3693"),
    ]
    return project(
        "fac", "GSA-TTS/FAC",
        "CC0-1.0 (GSA TTS's stated default: public domain in the US, CC0 elsewhere; NOT verified -- no licence file "
        "in the copy read, check on the repository before reuse)", False,
        FAC + "0001-0046 as numbered after PDRs and ADRs were merged (the older numbers of renumbered records, "
        "0025 -- a second 'compliance documentation' -- and 0038's change-record copy left out); 0011, 0012, 0016, 0019, "
        "0020, 0021, 0023, 0024, 0026, 0027, 0031, 0028, 0029, 0033, 0035, 0036, 0039, 0042, 0043 read, the others' titles from their file names",
        records, reports,
        # "the original decision to split ... a statically-generated frontend site and a backend API"; "this
        # supersedes all prior ADRs and PDRs regarding UEI" (0026 let an unchecked UEI through; 0028 requires it);
        # "we'll use ADRs for everything at this point; no more PDRs"
        updates=[("f003", "f021"), ("f009", "f021"), ("f006", "f028"), ("f018", "f028"), ("f026", "f028"),
                 ("f005", "f029")],
        unnamed=[("f003", "f021"), ("f009", "f021"), ("f006", "f028"), ("f018", "f028"), ("f026", "f028")],
        # the API no longer a priority (part of 0004); 0028 restates 0010's SAM.gov validation; 0029 changes, does
        # not end, the ADR process of 0001; 0024 stores workbooks for now instead of 0017's generation (its "0011");
        # 0042 adds a waiver path to 0028's rule; 0035 is the migration's new approach after 0012's plan; 0039
        # restates 0035's iterative migration; 0021 leaves the frontend's JavaScript libraries (0019's is-land and
        # Alpine) undetermined; 0036 allows removing editors, which 0031 left out (the rest of 0031 stands)
        ambiguous=[("f004", "f021"), ("f010", "f028"), ("f001", "f029"), ("f017", "f024"), ("f028", "f042"),
                   ("f012", "f035"), ("f035", "f039"), ("f019", "f021"), ("f031", "f036")])


# --- DFE-Digital/claim-additional-payments-for-teaching ---------------------------------------------------------
CAPT = "docs/architecture-decisions/"
CAPT_FILES = [
    ("001", "0001-record-architecture-decisions", "c5aaf5a0723b31c056988f2865f0e6de9e10b712"),
    ("002", "0002-use-rspec-for-testing", "6aaf7c6b7020b3366807ce14629fe373cea81b3d"),
    ("003", "0003-use-rubocop-for-linting", "c5aaf5a0723b31c056988f2865f0e6de9e10b712"),
    ("004", "0004-deployment-on-heroku", "c5aaf5a0723b31c056988f2865f0e6de9e10b712"),
    ("005", "0005-use-brakeman-for-vulnerability-checking-on-ci", "2688601dbbfab0379dfadaad5956aba0d5c2f454"),
    ("006", "0006-use-dependabot-for-dependent-library-vulnerability-checking",
     "a6ec930ba792041d0ef08b439edb32507993048d"),
    ("007", "0007-use-dfe-sign-in-for-admin-authentication", "6aaf7c6b7020b3366807ce14629fe373cea81b3d"),
    ("008", "0008-use-govuk-verify-for-claiment-identity-assurance", "e24e140be33ed7f6dd4fd23c4849f2d0a4268025"),
    ("009", "0009-capture-teacher-reference-number", "c5aaf5a0723b31c056988f2865f0e6de9e10b712"),
    ("010", "0010-dfe-can-download-claims-data-during-private-beta", "c5aaf5a0723b31c056988f2865f0e6de9e10b712"),
    ("011a", "0011-make-payments-using-dfes-existing-finance-system-nav", "c47a0da7f008c987ce3302a019b965089200c6fd"),
    ("011b", "0011-payroll-information-to-be-downloaded-directly-by-payroll-provider",
     "4bd4319f72a6ce2325c069834741932955b44fe5"),
    ("012", "0012-automate-dqt-integration", "7881ba11379343caa72b4c08ca98ec1dafeaa9e6"),
    ("013", "0013-azure-kubernetes", "d7b40cbe7416e5ceef57ef9df6823eacfbe000bd"),
]
CAPT_READ = {
    "010": ("2019-06-13", "ADR 10: DfE can download claim data during private beta: the service includes a secure "
            "download of all claim data, only during private beta, removed before public beta.",
            "c5aaf5a0723b31c056988f2865f0e6de9e10b712"),
    "004": ("2019-04-03", "ADR 4: Deployment on Heroku: we will use Heroku to deploy the application, with Heroku's "
            "pipeline feature for CI and deployment.", "74f19b687d4bc7128b13ca331fbb1e5e0a093635"),
    "008": (None, "ADR 8: Use GOV.UK Verify for claimant identity assurance: we will integrate with GOV.UK Verify, at "
            "Level of Assurance 2.", "84d657db18778f9e4753660bfd8960d1b5680c8f"),
    "011a": (None, "ADR 11: Make payments using DfE's existing finance system, NAV (draft): the service will use NAV's "
             "upgraded version, with its employee payroll and expenses module, to pay teachers directly by BACS.",
             "c47a0da7f008c987ce3302a019b965089200c6fd"),
    "011b": ("2019-11-14", "ADR 11: Payroll information to be downloaded directly by the payroll provider: the provider "
             "downloads the monthly payroll file from the back office, signed in through DfE Sign In with a 'Payroll "
             "operator' role, once only.", "4bd4319f72a6ce2325c069834741932955b44fe5"),
    "012": ("2021-03-19", "ADR 12: Automate DQT integration with the Claim service: the service replaces GOV.UK Verify "
            "with the Database of Qualified Teachers, validating the teacher's identity and QTS through its API before "
            "approving a claim.", "7881ba11379343caa72b4c08ca98ec1dafeaa9e6"),
    "013": ("2024-05-01", "ADR 13 (headed 12): Migration to Azure Kubernetes: Claim moves to Azure Kubernetes Service, "
            "deployed with Terraform, as the old infrastructure will no longer be supported.",
            "d7b40cbe7416e5ceef57ef9df6823eacfbe000bd"),
}


def claim_payments():
    anchors = {4: "2019-04-03", 10: "2019-06-13", 11: "2019-11-14", 12: "2021-03-19", 13: "2024-05-01"}
    records = from_titles("c", "ADR {}", CAPT, CAPT_FILES, CAPT_READ, lambda n: placed(anchors, n))
    reports = [
        ("r_c011a", "c011a", "Teacher payments: no all-in-one payment and payroll solution exists on the Digital "
                             "Marketplace, and an open tender would miss the project's deadlines.",
         CAPT + "0011-make-payments-using-dfes-existing-finance-system-nav.md",
         "c47a0da7f008c987ce3302a019b965089200c6fd"),
        ("r_c013", "c013", "The old infrastructure was set up by hand without infrastructure as code, which made it "
                           "error prone and difficult to automate.",
         CAPT + "0013-azure-kubernetes.md", "d7b40cbe7416e5ceef57ef9df6823eacfbe000bd"),
    ]
    return project(
        "claim-payments", "DFE-Digital/claim-additional-payments-for-teaching",
        "MIT (LICENCE, c20f85c7: Crown Copyright, Department for Education)", True,
        CAPT + "0001-0013 (two records numbered 0011, both kept; 0013's heading says 12); 0011 (both), 0012, 0013 "
        "read, and 0004, 0010 and 0008 (whose copy carries the date it was deprecated, so it is placed by number); the others' "
        "titles from their file names",
        records, reports,
        updates=[("c008", "c012")],  # "GOVUK Verify is being deprecated (ADR No. 0008) and is being replaced"
        # the old infrastructure 0013 leaves may or may not be 0004's Heroku (not said)
        ambiguous=[("c004", "c013")])


# --- arachne-framework/architecture -----------------------------------------------------------------------------
ARACHNE_FILES = [
    ("001", "adr-001-use-adrs", "15d191b6a238a785f09532271dc262b2661ce8e2"),
    ("002", "adr-002-configuration", "a44cd5fb6b8d99e72dad1096ea02aa2f99cdd670"),
    ("003", "adr-003-config-implementation", "2b09e1301037d2f882ffd89d42af50176fc1d9c6"),
    ("004", "adr-004-module-loading", "45cf9767986b512943f82c18f8eeab4dfa5c4c95"),
    ("005", "adr-005-user-facing-config", "dfaaba0bdc9abf96a510008c75f1a10c830dc866"),
    ("006", "adr-006-core-runtime", "79498c3841b651dcd4c4675fd4151b59c5251450"),
    ("007", "adr-007-configuration-updates", "ace37addd0c7ef2814b23d93e9658ec2229320fe"),
    ("008", "adr-008-abstract-modules", "851d905801f7270c6930fd285d65c0bae1b24b25"),
    ("009", "adr-009-datomic-config-ontology", "a79303fb96179695c6caa171ef9b8791bc2a9e43"),
    ("010", "adr-010-persistent-configs", "e654c50bb00d638dd572a1e4ae49976f8b4ccb03"),
    ("011", "adr-011-asset-pipeline", "7f407c58835029632db227800a64b2e6945482d6"),
    ("012", "adr-012-additional-validation", "16dc894fc99bb7fee251c22d5ca2850c0808c9fb"),
    ("013", "adr-013-error-reporting", "bb3d00e226892e1b84aca754ff20e1ed4d26b757"),
    ("014", "adr-014-project-templates", "5a216ee5d39dd2450d763bed2b6e3240af1bd2e7"),
    ("015", "adr-015-data-abstraction-model", "060a956277a5ad71df93da49fee52463408841af"),
    ("016", "adr-016-db-migrations", "b7fe289bfbaf71e303cf24305a5acc2f4872b2b6"),
    ("017", "adr-017-simplify-chimera-model", "060a956277a5ad71df93da49fee52463408841af"),
]
ARACHNE_START = "2016-04-01"  # no record read carries a date; the licence's year (Copyright 2016)
ARACHNE_READ = {
    "009": (None, "ADR-009: Configuration ontology (headed 'Abstract Modules'): add meta-attributes to every "
            "configuration schema for basic ontological relationships (classes, attribute domain and range, "
            "cardinality), semantically compatible with OWL.", "165a0f35e4afd37b77ca2063d3be2e17d12a7739"),
    "010": (None, "ADR-010: Persistent configuration: no concrete strategy for persisting configurations for now; each "
            "configuration gets its own namespace and a reified config entity, and tooling builds configurations "
            "from scratch.", "e654c50bb00d638dd572a1e4ae49976f8b4ccb03"),
    "003": (None, "ADR-003: Datomic-based configuration: we will use a Datomic style schema for Arachne's "
            "configuration; users may use Datomic Pro, Datomic Free or Datascript at runtime.",
            "2b09e1301037d2f882ffd89d42af50176fc1d9c6"),
    "007": (None, "ADR-007: Configuration updates: whenever the configuration changes, stop and discard the entire old "
            "Arachne runtime and start a new one; components may implement a Preservable protocol to carry state over.",
            "ace37addd0c7ef2814b23d93e9658ec2229320fe"),
    "017": (None, "ADR-017: Simplification of the Chimera model: remove supertypes, subtypes and attribute inheritance "
            "from Chimera's data model, which stays flat; several Chimera attributes may map to one DB attribute.",
            "060a956277a5ad71df93da49fee52463408841af"),
}


def arachne():
    records = from_titles("a", "ADR-{:03d}", "", ARACHNE_FILES, ARACHNE_READ, lambda n: monthly(ARACHNE_START, n))
    reports = [
        ("r_a017", "a017", "Chimera: a single extend-type migration may need to create columns in several tables, which "
                           "some databases do not support transactionally.",
         "adr-017-simplify-chimera-model.md", "060a956277a5ad71df93da49fee52463408841af"),
    ]
    return project(
        "arachne", "arachne-framework/architecture",
        "Apache-2.0 (LICENSE.txt, f362bfdd: Copyright 2016 Luke VanderHart)", True,
        "adr-001 to adr-017 at the repository's root; 003, 007, 009, 010, 017 read, the others' titles from their file names; "
        "no record read carries a date (placed one a month by number from 2016-04)",
        records, reports, updates=[],
        # "this ADR supersedes some aspects of ADR-15 and ADR-16": a partial replacement
        ambiguous=[("a015", "a017"), ("a016", "a017")])


# --- 18F/identity-pki -------------------------------------------------------------------------------------------
PKI = "doc/adr/"
PKI_FILES = [
    ("001", "0001-record-architecture-decisions", "d578aeeb114ef172faf30c42f473885c0febfe0e"),
    ("002", "0002-gitlab-auth", "af8801c75a45924ca805aa55042b118cdb6c9f68"),
    ("003", "0003-oscal", "828dd40b02dc86784e1fefd9436c152c05363cd0"),
    ("004", "0004-aws-regions", "150fe547585633592f189244bcb107f82e9c8432"),
    ("005", "0005-logging", "257bb5937452f33bbc52ff88a17bdc5fe5d50462"),
    ("006", "0006-pushvspull", "58dfb78bb3e9c2d0f8dff8ad36fc51f590b0faf5"),
    ("007", "0007-egress-filtering", "65f4f7de4a260f77426f3fce0b7fdd0514588484"),
    ("008", "0008-diagramming", "98d4910e5444a361c94a3ea48ffc7baca94f9576"),
    ("009", "0009-database-connection-pooling", "257bb5937452f33bbc52ff88a17bdc5fe5d50462"),
    ("010", "0010-blessed-images", "39772729db59b455a02a61966c55a3911f408e09"),
    ("011", "0011-ecr-lifecycle", "384a6d2cfcf47ef06292d75882ac8d1deeae7049"),
    ("012", "0012-oncall-notifications", "c1cc5887eca2cb3e98314f81321a7f742865dbf7"),
    ("013", "0013-k8s-rails-access", "2e6b35709702b1d2a0731c71a8af498781740613"),
    ("014", "0014-eks-cluster-management", "c3290e9163dda145cb5f44fc18e3d89de29ec0e1"),
    ("015", "0015-bottlerocket", "dbbc7a466788cd9d9f0db98b87776aa913276c95"),
    ("017", "0017-application-secrets-management", "a9da367e82c2e8b67788fc4e8c6545fed1cb76d0"),
]
PKI_START = "2021-01-01"  # no record read carries a date
PKI_READ = {
    "006": (None, "ADR 6: Push vs. pull deployment architecture: whenever possible, login.gov decentralises the power to "
            "change environments with a distributed pull model instead of a centralised push model.",
            "58dfb78bb3e9c2d0f8dff8ad36fc51f590b0faf5"),
    "013": (None, "ADR 13: Rails access in Kubernetes: cluster access is handled through IAM roles, and ArgoCD gets an "
            "ingress in each long-lived cluster with GitLab authentication.", "2e6b35709702b1d2a0731c71a8af498781740613"),
    "017": (None, "ADR 17: Application secrets management: move all sensitive secrets in the applications' S3 YAML files "
            "to AWS Secrets Manager.", "a9da367e82c2e8b67788fc4e8c6545fed1cb76d0"),
    "014": (None, "ADR 14: EKS cluster management: we will use kustomize to manage our clusters and the deployments in "
            "them, instead of EKS blueprints, the gitops-bridge and a helm chart of helm charts.",
            "6f3cbefc57edf4fc38aae6f3991560c6ac994ff2"),
    "015": (None, "ADR 15: EKS worker node AMI: we will use Bottlerocket for the worker nodes, with the Bottlerocket "
            "update operator on every cluster.", "bb13361a7eff84fd06b7ab29f81a5f56584428a2"),
    "004": (None, "ADR 4: AWS region use for Login.gov: use US-West-2 (Oregon) as the primary region and US-East-1 "
            "(Virginia) as the alternate and disaster recovery region.", "150fe547585633592f189244bcb107f82e9c8432"),
}


def identity_pki():
    records = from_titles("k", "ADR {}", PKI, PKI_FILES, PKI_READ, lambda n: monthly(PKI_START, n))
    reports = [
        ("r_k004", "k004", "AWS regions: US-East-1 is a single point of control failure for many AWS services, "
                           "including Route53, and its size makes it the region most likely to have growth-related "
                           "outages.", PKI + "0004-aws-regions.md", "150fe547585633592f189244bcb107f82e9c8432"),
        ("r_k014", "k014", "EKS: updating ArgoCD or the metrics-server sometimes meant going to terraform and sometimes "
                           "to a helm chart; there was no central place to manage everything.",
         PKI + "0014-eks-cluster-management.md", "6f3cbefc57edf4fc38aae6f3991560c6ac994ff2"),
        ("r_k017", "k017", "Two incidents in late 2023: AAMVA credentials were published, and AAMVA and LexisNexis "
                           "credentials leaked in source code.",
         PKI + "0017-application-secrets-management.md", "a9da367e82c2e8b67788fc4e8c6545fed1cb76d0"),
        ("r_k015", "k015", "Amazon Linux 2, used on our EKS worker nodes, reaches end of life in 2025.",
         PKI + "0015-bottlerocket.md", "bb13361a7eff84fd06b7ab29f81a5f56584428a2"),
    ]
    return project(
        "identity-pki", "18F/identity-pki",
        "CC0-1.0 (18F's stated default: public domain in the US, CC0 elsewhere; NOT verified -- no licence file in "
        "the copy read, check on the repository before reuse)", False,
        PKI + "0001-0017 (no 0016; the older copy 0004-regions left out); 0004, 0006, 0013, 0014, 0015, 0017 read, the others' titles "
        "from their file names; no record read carries a date (placed one a month by number from 2021-01)",
        records, reports, updates=[])


# --- UKHomeOffice/drt-v2 ----------------------------------------------------------------------------------------
DRT = "doc/architecture/decisions/"
DRT_FILES = [
    ("001", "0001-record-architecture-decisions", "85af30804441e05f536f3b3d4677361b8351c430"),
    ("002", "0002-use-scala", "3f0d04ff80d09122c1b7b08ce857ebbf257bff75"),
    ("003", "0003-use-scalajs", "3f0d04ff80d09122c1b7b08ce857ebbf257bff75"),
    ("004", "0004-use-scala-reactjs", "ae1c29fc7a86753e4109a3aaade2dec78bef8990"),
    ("005", "0005-use-diode", "ae1c29fc7a86753e4109a3aaade2dec78bef8990"),
    ("006", "0006-physical-deployment-one-jvm-per-port", "85af30804441e05f536f3b3d4677361b8351c430"),
    ("007", "0007-use-renjin", "ae1c29fc7a86753e4109a3aaade2dec78bef8990"),
    ("008", "0008-bring-advance-passenger-info-code-into-main-service", "ae1c29fc7a86753e4109a3aaade2dec78bef8990"),
    ("009", "0009-use-akka-streams", "3f0d04ff80d09122c1b7b08ce857ebbf257bff75"),
    ("010", "0010-use-akka-persistence", "1668fb72833e65cadec65427172366a2a91ff551"),
    ("011", "0011-use-play", "3f0d04ff80d09122c1b7b08ce857ebbf257bff75"),
    ("012", "0012-serialize-akka-persistence-with-protobuf", "ae1c29fc7a86753e4109a3aaade2dec78bef8990"),
    ("013", "0013-use-lihaoyi-s-autowire", "3f0d04ff80d09122c1b7b08ce857ebbf257bff75"),
]


DRT_READ = {
    "012": ("2017-03-31", "ADR 12: Serialize akka persistence with Protobuf: use Google's protobuf to serialize akka "
            "persistence messages, not Java serialization.", "ae1c29fc7a86753e4109a3aaade2dec78bef8990"),
}


def drt():
    records = from_titles("d", "ADR {}", DRT, DRT_FILES, DRT_READ, lambda n: placed({12: "2017-03-31"}, n))
    return project(
        "drt", "UKHomeOffice/drt-v2",
        "MIT, the Home Office's usual licence (NOT verified -- no licence file in the copy read, check on the "
        "repository before reuse)", False,
        DRT + "0001-0013; 0012 read (dated 2017-03-31: the others are placed a week apart by number around it), the "
        "others' titles from their file names; thirteen decisions all in force as far as they say: it measures wrong "
        "links only",
        records, reports=[], updates=[])


# --- Crown-Commercial-Service/ReportMI-service-manual -----------------------------------------------------------
RMI = "doc/adr/"
RMI_INDEX = "033d55b0e7c3c307af906545bf09969fb50f9bd4"  # README.md, the index of records 1-25 and their titles
RMI_TITLES = {  # the index's own titles (records 24 and 25 marked PROPOSED there)
    1: ("0001-record-architecture-decisions", "Record architecture decisions"),
    2: ("0002-overall-technical-approach", "Overall technical approach"),
    3: ("0003-use-github-for-code", "Use GitHub for code"),
    4: ("0004-use-ruby-on-rails-for-applications", "Use Ruby on Rails for applications"),
    5: ("0005-use-docker-for-applications", "Use docker for applications"),
    6: ("0006-use-terraform-to-create-and-document-infrastructure",
        "Use Terraform to create and document infrastructure"),
    7: ("0007-use-json-api-standard-for-api-endpoints", "Use JSON API standard for API endpoints"),
    8: ("0008-use-aws-for-hosting", "Use AWS for hosting"),
    9: ("0009-user-interface-look-and-feel", "User interface look and feel"),
    10: ("0010-use-postgresql-on-rds-for-database", "Use PostgreSQL on RDS for database"),
    13: ("0013-use-s3-for-storing-files", "Use AWS S3 for storing files"),
    14: ("0014-use-gov-uk-notify-for-sending-notifications", "Use GOV.UK Notify for sending notifications"),
    15: ("0015-use-lambda-for-file-ingest-and-data-validation", "Lambda for file ingest and validation"),
    16: ("0016-data-structure-tasks-submissions-entries-and-files",
         "Data structure (tasks, submissions, entries and files)"),
    17: ("0017-task-state-machine", "Task state machine"),
    18: ("0018-submission-state-machine", "Submission state machine"),
    19: ("0019-store-data-validation-rules-in-json-files", "Store data validation rules in JSON files"),
    20: ("0020-name-the-service-and-domain", "Name the service and domain"),
    21: ("0021-generate-a-data-export-for-finance", "Generate a data export for finance"),
    22: ("0022-use-auth0-for-access-management-at-scale", "Use Auth0 for access management at scale"),
    23: ("0023-workday-integration-principles", "Workday integration principles"),
    24: ("0024-use-workday-api-to-manage-invoicing", "Use Workday API to manage invoicing"),
    25: ("0025-submit-invoices-to-workday-asyncronously", "Submit invoices to Workday asynchronously"),
}
RMI_READ = [  # (number, date, text, file, commit)
    (11, "2018-07-18", "ADR 11: Use Auth0 for temporary user authentication: we will use Auth0 for authentication on a "
     "temporary basis, and replace it later with CCS's standard sign-on services (SRS for suppliers, G-Suite for "
     "staff).", RMI + "0011-use-auth0-for-temporary-user-authentication.md", "b33d07c452f2b38efd54b4e681309faf9e9af73f"),
    (12, "2018-07-18", "ADR 12: Use ECS for hosting applications: we will use AWS ECS to host the Docker-containerised "
     "applications.", RMI + "0012-use-ecs-for-hosting-applications.md", "30e47cd98f7f6524687bd488d4d0fddb776ee94b"),
    (26, "2019-07-29", "ADR 26: Use GOV.UK PaaS for hosting: switch the hosting of this service from AWS ECS to GOV.UK "
     "PaaS, for all applications and environments.", "docs/adr/0026-use-govuk-paas-for-hosting.md",
     "4dcb6f6223ae72d32b86c5ed2eba14208857b3ac"),
    (27, "2019-07-29", "ADR 27: Stop using Docker: remove Docker from the applications.", "docs/adr/0027-stop-using-docker.md",
     "b23de9bba7911aba20214bebe17a87ef48ea143a"),
]


def report_mi():
    anchors = {11: "2018-07-18", 26: "2019-07-29"}
    records = [(f"m{n:03d}", placed(anchors, n), f"ADR {n}: {title}.", RMI + stem + ".md", RMI_INDEX)
               for n, (stem, title) in RMI_TITLES.items()]
    records += [(f"m{n:03d}", day, text, file, commit) for n, day, text, file, commit in RMI_READ]
    reports = [
        ("r_m027", "m027", "Both Rails applications advised against using Docker locally, so the Docker setup no longer "
                           "worked out of the box for new joiners.",
         "docs/adr/0027-stop-using-docker.md", "b23de9bba7911aba20214bebe17a87ef48ea143a"),
    ]
    return project(
        "report-mi", "Crown-Commercial-Service/ReportMI-service-manual",
        "OGL-3.0, the licence Crown Commercial Service states for its published decision records (its "
        "CCS-Architecture-Decision-Records repository's LICENCE, 08798b0b); NOT verified for this repository -- no "
        "licence file in the copy read, check on the repository before reuse", False,
        "README.md's index of records 1-25 (033d55b0) for the titles; doc/adr/0011 and 0012, docs/adr/0026 and 0027 "
        "read",
        records, reports,
        # 0026 names 0012's ECS decision and switches hosting to GOV.UK PaaS; 0027 removes Docker (0005) without
        # citing it, "after the recent move from AWS ECS"
        updates=[("m012", "m026"), ("m005", "m027")],
        unnamed=[("m005", "m027")],
        # 0026 makes 0005's docker configuration obsolete (0027 then removes it); GOV.UK PaaS still runs on AWS
        # (0008); 0022's Auth0 "at scale" after 0011's temporary Auth0 (0022 not read)
        ambiguous=[("m005", "m026"), ("m008", "m026"), ("m011", "m022")])


# --- alphagov/content-data-api ----------------------------------------------------------------------------------
CDA = "docs/arch/"
CDA_FILES = [  # the records in the copy read (001, 002, 004, 005 and 010 are not in it)
    ("000", "adr-000-document-architectural-decisions", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ("003", "adr-003-use-google-tag-manager", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ("006", "adr-006-track-metrics-via-time-dimension", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ("007", "adr-007-etl-publishing-api-content-store", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ("008", "adr-008-focus-on-english-content", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ("009", "adr-009-consume-from-publishing-api", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ("011", "adr-011-new-app-for-ui-management", "9d75bb887f00396e866cef518913dc54e4bb6c32"),
    ("012", "adr-012-use-sidekiq-for-proessing-rabbitmq-messages", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ("013", "adr-013-store-json-from-events-that-carry-content-changes", "9d75bb887f00396e866cef518913dc54e4bb6c32"),
    ("014", "adr-014-track-attribute-changes-per-basepath", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
]
CDA_READ = {
    "006": ("2018-01-18", "ADR 006: Track metrics through a time dimension: build a data warehouse, a PostgreSQL "
            "database in the first iteration, that keeps a copy of the transactional systems' information.",
            "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    "007": ("2018-01-26", "ADR 007: ETL to populate the Content Items dimension: load all live content items' ids from "
            "the publishing API, get each item's JSON from the Content Store, and listen to publishing API events to "
            "update the dimension daily.", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    "009": ("2018-06-04", "ADR 009: Consume content items only from the publishing API: extract all content from the "
            "publishing API messages, without any request to the content store.",
            "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    "012": ("2018-09-04", "ADR 012: Process each RabbitMQ message in a Sidekiq job: all the events from the Publishing "
            "API are processed in Sidekiq jobs.", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    "013": ("2018-09-20", "ADR 013: Store the Content Item JSON that makes the dimensions grow: store the entire JSON "
            "document (jsonb) of each content item that grows the Items dimension.",
            "9d75bb887f00396e866cef518913dc54e4bb6c32"),
    "014": ("2018-09-21", "ADR 014: Track attribute changes through time for base paths: give each base path, the "
            "warehouse's grain, a unique identifier that never changes.", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
}


def content_data_api():
    anchors = {6: "2018-01-18", 7: "2018-01-26", 9: "2018-06-04", 12: "2018-09-04", 13: "2018-09-20",
               14: "2018-09-21"}
    records = from_titles("e", "ADR {:03d}", CDA, CDA_FILES, CDA_READ, lambda n: placed(anchors, n))
    reports = [
        ("r_e012", "e012", "Processing Publishing API messages synchronously, each in a transaction, gave "
                           "'PG::ConnectionBad: PQsocket() can't get socket descriptor' errors in staging.",
         CDA + "adr-012-use-sidekiq-for-proessing-rabbitmq-messages.md", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
        ("r_e013", "e013", "A bug in filtering Publishing API events gave some days more than 4 million events, each a "
                           "new version of a content item with no real change.",
         CDA + "adr-013-store-json-from-events-that-carry-content-changes.md",
         "9d75bb887f00396e866cef518913dc54e4bb6c32"),
        ("r_e014", "e014", "Aggregating a base path's metrics through time via its content_id needs complex queries "
                           "with edge cases, and the codebase has become hard to maintain.",
         CDA + "adr-014-track-attribute-changes-per-basepath.md", "a14b7e95c083bf45ecc098760985f02e023da2ea"),
    ]
    return project(
        "content-data-api", "alphagov/content-data-api",
        "MIT (LICENCE, 88ec58a6: Crown Copyright, Government Digital Service; the MIT text)", True,
        CDA + "adr-000 to adr-014 as far as the copy read holds them (001, 002, 004, 005, 010 absent); 006, 007, 009, "
        "012, 013, 014 read, the others' titles from their file names",
        records, reports,
        # 009: "we originally used the publishing API messages just to flag items as updated, then fetched items
        # from the content store" -> extract everything from the messages (007 not cited by number)
        updates=[("e007", "e009")], unnamed=[("e007", "e009")],
        # 012 moves to Sidekiq the processing 009 kept synchronous "for the time being"; 013 stores again the JSON
        # 007 said it would persist (it had been removed since)
        ambiguous=[("e009", "e012"), ("e007", "e013")])


# --- guardian/cdk -----------------------------------------------------------------------------------------------
GCDK = "docs/architecture-decision-records/"
GCDK_START = "2021-01-01"  # no record carries a date; "002U1" and "005-x01" are placed after 006, in that order
GCDK_FILES = [
    ("001", "001-constructs-and-patterns", "a1eef39c7620fc45180943641e4c87c1c451e14f"),
    ("002", "002-component-constuctors", "5488958d072598bf1beaed1de4502cdab0981e96"),
    ("003", "003-package-manager", "061c08687a77467da16f24c431d447d6d230347a"),
    ("004", "004-testing", "6c10db6719b06e239fdcef26b5b256dfce27246e"),
    ("005", "005-package-structure", "6c10db6719b06e239fdcef26b5b256dfce27246e"),
    ("006", "006-stage-awareness", "69d3e670e8731c491e41b9691fa671c7847caa4a"),
    ("007u", "002U1-component-constructors", "ae105f14705477c032b3ac3ecb1953c2ab64fafe"),
    ("008x", "005-x01-package-structure", "8d951cb97aa127f72b544f109f96b11f6ed70389"),
]
GCDK_READ = {
    "003": (None, "ADR 003: Package manager: use npm with the script pattern; common tasks (lint, test, build) and "
            "the scripts CI runs are kept in the script directory.", "061c08687a77467da16f24c431d447d6d230347a"),
    "007u": (None, "ADR 002U1: Component constructors, update 1: the first parameter of a construct's constructor is a "
             "scope of type GuApp, not GuStack; constructs shared across apps are singletons on the GuStack.",
             "ae105f14705477c032b3ac3ecb1953c2ab64fafe"),
    "008x": (None, "ADR 005-x01: Package structure, extension 01: experimental features are published inside the "
             "package, in an experimental directory.", "8d951cb97aa127f72b544f109f96b11f6ed70389"),
}


def guardian_cdk():
    records = from_titles("g", "ADR {:03d}", GCDK, GCDK_FILES, GCDK_READ, lambda n: monthly(GCDK_START, n))
    reports = [
        ("r_g003", "g003", "yarn: `yarn login` still prompts for a password at release time, which doesn't work with "
                           "np, and publishing with yarn leaves only index.js in the lib directory.",
         GCDK + "003-package-manager.md", "061c08687a77467da16f24c431d447d6d230347a"),
    ]
    return project(
        "guardian-cdk", "guardian/cdk",
        "Apache-2.0, the repository's stated licence (NOT verified -- no licence file in the copy read, check on the "
        "repository before reuse)", False,
        GCDK + "001-006, 002U1 and 005-x01; 003, 002U1 and 005-x01 read, the others' titles from their file names; "
        "no record carries a date (placed one a month from 2021-01, the update and the extension last)",
        records, reports,
        # "this is an update to Component Constructors, namely the first decision"
        updates=[("g002", "g007u")],
        ambiguous=[("g005", "g008x")])  # "an extension to the package structure ADR"


ABOUT = (
    "Session 36's held-out Architecture Decision Records (sources, licences and the commit read per record; "
    "README.md, section 'Held out, session 36'), transcribed as adr_projects_s35.json was: one memory per record, its "
    "number, title and, where read, its decision in the authors' words trimmed to a sentence or two. `updates` are "
    "the pairs the authors marked (older first); `updates_unnamed` repeats those whose newer record states the new "
    "state without citing the older by number or title; `ambiguous` pairs count neither way; `reports` report on a "
    "subject and never supersede anything. Every other link is wrong. Split `held-out-s36` for every project: "
    "committed before any run, never tuned on, run once by the lead (bench/public_links.py --held-out-s36). "
    "`licence_verified` is false where the licence file was not in the copy read. Built by "
    "bench/build_adr_held_out_s36.py.")


def build() -> dict:
    projects = [buy_for_your_school(), regulated_professions(), tdr(), fac(), claim_payments(), arachne(),
                identity_pki(), drt(), report_mi(), content_data_api(), guardian_cdk()]
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

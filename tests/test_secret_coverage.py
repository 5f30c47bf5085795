"""Every rule of the gitleaks default configuration and every pattern plugin of detect-secrets
has a detector here: one example per rule id, written from the provider's documented format.

The rule ids are those of gitleaks' ``config/gitleaks.toml`` (218 rules at commit 009e025) and the plugin
classes of detect-secrets 1.5. A rule dropped from the table makes
``test_every_gitleaks_rule_has_a_case`` fail; a detector dropped from server/ makes its case fail.
Examples are templates (``{h32}``: 32 lower-case hex digits) filled with deterministic random
characters at run time, so this file holds no string a secret scanner would flag.
"""

from __future__ import annotations

import random
import re
import string

import pytest

from server.guard.redact import redact

_ALPHABETS = {
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "a": string.ascii_lowercase + string.digits,
    "A": string.ascii_letters + string.digits,
    "U": string.ascii_uppercase + string.digits,
    "d": string.digits,
    "l": string.ascii_letters,
    "w": string.ascii_letters + string.digits + "_-",
    "b": string.ascii_letters + string.digits + "+/",
    "z": string.ascii_uppercase + "234567",
    "c": "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper(),
}
_SLOT = re.compile(r"\{([hHaAUdlwbzc])(\d+)\}|\{uuid\}|\{UUID\}")


def fill(template: str, seed: str) -> str:
    """The template with each slot replaced by random characters (a digit and a letter in each
    slot of 6+ characters where the alphabet has both: real keys do)."""
    rng = random.Random(seed)

    def one(alphabet: str, n: int) -> str:
        while True:
            s = "".join(rng.choice(alphabet) for _ in range(n))
            if n < 6 or not (set(alphabet) & set(string.digits) and set(alphabet) & set(string.ascii_letters)):
                return s
            if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
                return s

    def sub(m: re.Match[str]) -> str:
        if m.group(0) in ("{uuid}", "{UUID}"):
            u = "-".join(one(_ALPHABETS["h"], n) for n in (8, 4, 4, 4, 12))
            return u.upper() if m.group(0) == "{UUID}" else u
        return one(_ALPHABETS[m.group(1)], int(m.group(2)))

    return _SLOT.sub(sub, template)


#: gitleaks rule id -> an example in context. Prefixes are split ("gh" "p_") where a scanner
#: would otherwise see a token in this file.
GITLEAKS: dict[str, str] = {
    "1password-secret-key": "A3" "-{U6}-{U11}-{U5}-{U5}-{U5}",
    "1password-service-account-token": "OP_SERVICE_ACCOUNT_TOKEN=ops" "_eyJ{b260}",
    "adafruit-api-key": "ADAFRUIT_IO_KEY = '{a32}'",
    "adobe-client-id": "adobe_client_id: {h32}",
    "adobe-client-secret": "p8" "e-{A32}",
    "age-secret-key": "AGE-SECRET" "-KEY-1{c58}",
    "airtable-api-key": "airtable_api_key = \"{a17}\"",
    "algolia-api-key": "ALGOLIA_ADMIN_API_KEY={a32}",
    "alibaba-access-key-id": "LT" "AI{A20}",
    "alibaba-secret-key": "alibaba_secret_key = {a30}",
    "anthropic-admin-api-key": "sk-ant" "-admin01-{w93}AA",
    "anthropic-api-key": "sk-ant" "-api03-{w93}AA",
    "artifactory-api-key": "AK" "Cp{A69}",
    "artifactory-reference-token": "cmVmd" "{A59}",
    "asana-client-id": "ASANA_CLIENT_ID={d16}",
    "asana-client-secret": "asana_client_secret = '{a32}'",
    "atlassian-api-token": "JIRA_API_TOKEN={a20}{h4}",
    "authress-service-client-access-key": "AUTHRESS_KEY=sc" "_{a20}.{a5}.acc_{a20}.{b60}",
    "aws-access-token": "AK" "IA{z16}",
    "azure-ad-client-secret": "client_secret: {A3}8Q" "~{w34}",
    "beamer-api-token": "beamer_api_token = b_{w44}",
    "bitbucket-client-id": "BITBUCKET_CLIENT_ID={a32}",
    "bitbucket-client-secret": "bitbucket_client_secret: {w64}",
    "bittrex-access-key": "bittrex_access_key = {a32}",
    "bittrex-secret-key": "BITTREX_SECRET_KEY={a32}",
    "cisco-meraki-api-key": "MERAKI_DASHBOARD_API_KEY={h40}",
    "clickhouse-cloud-api-secret-key": "CLICKHOUSE_SECRET=4b" "1d{A38}",
    "clojars-api-token": "CLOJARS" "_{a60}",
    "cloudflare-api-key": "CLOUDFLARE_API_TOKEN={w40}",
    "cloudflare-global-api-key": "cloudflare_global_api_key = {h37}",
    "cloudflare-origin-ca-key": "v1" ".0-{h24}-{h146}",
    "codecov-access-token": "CODECOV_TOKEN={a32}",
    "cohere-api-token": "CO_API_KEY={A40}",
    "coinbase-access-token": "coinbase_access_token = {w64}",
    "confluent-access-token": "confluent_access_token: {a16}",
    "confluent-secret-key": "CONFLUENT_SECRET_KEY={a64}",
    "contentful-delivery-api-token": "contentful_delivery_token = {w43}",
    "curl-auth-header": "curl -H \"Authorization: Bearer {A40}\" https://api.example.com/v1/items",
    "curl-auth-user": "curl --user deploy:{A16} https://ci.example.com/api",
    "database-password": "DB_PASSWORD={A16}",
    "databricks-api-token": "da" "pi{h32}",
    "datadog-access-token": "DATADOG_ACCESS_TOKEN={a40}",
    "defined-networking-api-token": "DNKEY=dn" "key-{a26}-{a52}",
    "digitalocean-access-token": "do" "o_v1_{h64}",
    "digitalocean-pat": "do" "p_v1_{h64}",
    "digitalocean-refresh-token": "do" "r_v1_{h64}",
    "discord-api-token": "discord_api_token = {h64}",
    "discord-client-id": "DISCORD_CLIENT_ID={d18}",
    "discord-client-secret": "discord_client_secret: {w32}",
    "doppler-api-token": "dp" ".pt.{A43}",
    "droneci-access-token": "DRONECI_ACCESS_TOKEN={a32}",
    "dropbox-api-token": "dropbox_api_secret = {a15}",
    "dropbox-long-lived-api-token": "DROPBOX_TOKEN={a11}AAAAAAAAAA{w43}",
    "dropbox-short-lived-api-token": "dropbox_token = sl" ".{w135}",
    "duffel-api-token": "duf" "fel_test_{w43}",
    "dynatrace-api-token": "dt0" "c01.{U24}.{U64}",
    "easypost-api-token": "EZ" "AK{A54}",
    "easypost-test-api-token": "EZ" "TK{A54}",
    "etsy-access-token": "ETSY_ACCESS_TOKEN={a24}",
    "facebook-access-token": "facebook_token = {d16}|{w30}",
    "facebook-page-access-token": "EA" "AM{A120}",
    "facebook-secret": "FACEBOOK_APP_SECRET={h32}",
    "fastly-api-token": "FASTLY_API_TOKEN={w32}",
    "finicity-api-token": "finicity_api_token = {h32}",
    "finicity-client-secret": "FINICITY_CLIENT_SECRET={a20}",
    "finnhub-access-token": "finnhub_token = {a20}",
    "flickr-access-token": "FLICKR_ACCESS_TOKEN={a32}",
    "flutterwave-encryption-key": "FLWSECK" "_TEST-{h12}",
    "flutterwave-public-key": "FLWPUBK" "_TEST-{h32}-X",
    "flutterwave-secret-key": "FLWSECK" "_TEST-{h32}-X",
    "flyio-access-token": "FLY_API_TOKEN=fo" "1_{w43}",
    "frameio-api-token": "fio" "-u-{w64}",
    "freemius-secret-key": "'secret_key' => 'sk" "_{A29}'",
    "freshbooks-access-token": "freshbooks_token = {a64}",
    "gcp-api-key": "AI" "za{w35}",
    "generic-api-key": "api_key = \"{A32}\"",
    "github-app-token": "gh" "s_{A36}",
    "github-fine-grained-pat": "github" "_pat_{A82}",
    "github-oauth": "gh" "o_{A36}",
    "github-pat": "gh" "p_{A36}",
    "github-refresh-token": "gh" "r_{A36}",
    "gitlab-cicd-job-token": "glc" "bt-{A5}_{w20}",
    "gitlab-deploy-token": "gl" "dt-{w20}",
    "gitlab-feature-flag-client-token": "gl" "ffct-{w20}",
    "gitlab-feed-token": "gl" "ft-{w20}",
    "gitlab-incoming-mail-token": "gl" "imt-{w25}",
    "gitlab-kubernetes-agent-token": "gl" "agent-{w50}",
    "gitlab-oauth-app-secret": "gl" "oas-{w64}",
    "gitlab-pat": "gl" "pat-{w20}",
    "gitlab-pat-routable": "gl" "pat-{w27}.01{a7}",
    "gitlab-ptt": "gl" "ptt-{h40}",
    "gitlab-rrt": "GR13" "48941{w20}",
    "gitlab-runner-authentication-token": "gl" "rt-{w20}",
    "gitlab-runner-authentication-token-routable": "gl" "rt-t1_{w27}.01{a7}",
    "gitlab-scim-token": "gl" "soat-{w20}",
    "gitlab-session-cookie": "Cookie: _gitlab" "_session={a32}",
    "gitter-access-token": "GITTER_TOKEN={w40}",
    "gocardless-api-token": "gocardless_access_token = live_{w40}",
    "grafana-api-key": "eyJrIjoi" "{A72}",
    "grafana-cloud-api-token": "gl" "c_{A32}",
    "grafana-service-account-token": "gl" "sa_{A32}_{h8}",
    "harness-api-key": "pa" "t.{w22}.{A24}.{A20}",
    "hashicorp-tf-api-token": "{a14}.atlas" "v1.{w64}",
    "hashicorp-tf-password": "administrator_login_password = \"{w16}\"",
    "heroku-api-key": "HEROKU_API_KEY={uuid}",
    "heroku-api-key-v2": "HR" "KU-AA{w58}",
    "hubspot-api-key": "hubspot_api_key: {UUID}",
    "huggingface-access-token": "hf" "_{l34}",
    "huggingface-organization-api-token": "api" "_org_{l34}",
    "infracost-api-token": "ic" "o-{A32}",
    "intercom-api-key": "INTERCOM_API_KEY={w60}",
    "intra42-client-secret": "s-s4" "t2ud-{h64}",
    "jfrog-api-key": "JFROG_API_KEY={a73}",
    "jfrog-identity-token": "artifactory_identity_token = {a64}",
    "jwt": "Authorization: eyJhbGciOiJIUzI1NiJ9" ".eyJ{A40}.{w43}",
    "jwt-base64": "token: ZXlK" "aGJHY2lPaU{b64}",
    "kraken-access-token": "kraken_api_key = {b88}",
    "kubernetes-secret-yaml": "apiVersion: v1\nkind: Secret\ndata:\n  password: {b24}\n",
    "kucoin-access-token": "KUCOIN_ACCESS_TOKEN={h24}",
    "kucoin-secret-key": "kucoin_secret_key = {uuid}",
    "launchdarkly-access-token": "LAUNCHDARKLY_ACCESS_TOKEN={w40}",
    "linear-api-key": "lin" "_api_{A40}",
    "linear-client-secret": "LINEAR_CLIENT_SECRET={h32}",
    "linkedin-client-id": "linkedin_client_id = {a14}",
    "linkedin-client-secret": "LINKEDIN_CLIENT_SECRET={a16}",
    "lob-api-key": "LOB_API_KEY=live" "_{h35}",
    "lob-pub-api-key": "lob_pub_key = test" "_pub_{h31}",
    "mailchimp-api-key": "MAILCHIMP_API_KEY={h32}-us12",
    "mailgun-private-api-token": "mailgun_api_key = key" "-{h32}",
    "mailgun-pub-key": "MAILGUN_PUBLIC_KEY=pubkey" "-{h32}",
    "mailgun-signing-key": "mailgun_signing_key = {h32}-{h8}-{h8}",
    "mapbox-api-token": "MAPBOX_TOKEN=pk" ".{a60}.{a22}",
    "mattermost-access-token": "mattermost_access_token = {a26}",
    "maxmind-license-key": "{A6}_{A29}" "_mmk",
    "messagebird-api-token": "MESSAGEBIRD_API_TOKEN={a25}",
    "messagebird-client-id": "message_bird_client_id = {uuid}",
    "microsoft-teams-webhook": "https://acme.webhook.office.com/webhookb2/{uuid}@{uuid}/IncomingWebhook/{a32}/{uuid}",
    "netlify-access-token": "NETLIFY_AUTH_TOKEN={w43}",
    "new-relic-browser-api-token": "newrelic_browser_key = NR" "JS-{h19}",
    "new-relic-insert-key": "NEW_RELIC_INSERT_KEY=NR" "II-{w32}",
    "new-relic-user-api-id": "new_relic_user_api_id = {a64}",
    "new-relic-user-api-key": "NEW_RELIC_API_KEY=NR" "AK-{U27}",
    "notion-api-token": "nt" "n_{d11}{A35}",
    "npm-access-token": "np" "m_{A36}",
    "nuget-config-password": "<add key=\"ClearTextPassword\" value=\"{A16}\" />",
    "nytimes-access-token": "NYTIMES_API_KEY={w32}",
    "octopus-deploy-api-key": "AP" "I-{U26}",
    "okta-access-token": "OKTA_API_TOKEN=00{w40}",
    "openai-api-key": "s" "k-proj-{w74}T3Blbk" "FJ{w74}",
    "openshift-user-token": "sha256" "~{w43}",
    "perplexity-api-key": "pp" "lx-{A48}",
    "pkcs12-file": "",  # a file-name rule (*.p12, *.pfx): no text to match; see EXCEPTIONS
    "plaid-api-token": "plaid_access_token = access" "-sandbox-{uuid}",
    "plaid-client-id": "PLAID_CLIENT_ID={a24}",
    "plaid-secret-key": "plaid_secret = {a30}",
    "planetscale-api-token": "pscale" "_tkn_{w43}",
    "planetscale-oauth-token": "pscale" "_oauth_{w43}",
    "planetscale-password": "pscale" "_pw_{w43}",
    "postman-api-token": "PM" "AK-{h24}-{h34}",
    "prefect-api-token": "pn" "u_{A36}",
    "private-key": "-----BEGIN RSA PRIVATE" " KEY-----\n{b64}\n{b64}\n-----END RSA PRIVATE" " KEY-----",
    "privateai-api-token": "PRIVATE_AI_API_KEY={a32}",
    "pulumi-api-token": "pu" "l-{h40}",
    "pypi-upload-token": "pypi-AgEIcHlwaS5" "vcmc{w60}",
    "rapidapi-access-token": "X-RapidAPI-Key: {w50}",
    "readme-api-token": "rd" "me_{a70}",
    "rubygems-api-token": "rubygems" "_{h48}",
    "scalingo-api-token": "tk" "-us-{w48}",
    "sendbird-access-id": "SENDBIRD_ACCESS_ID={UUID}",
    "sendbird-access-token": "sendbird_api_token = {h40}",
    "sendgrid-api-token": "S" "G.{w22}.{w43}",
    "sendinblue-api-token": "xkey" "sib-{h64}-{A16}",
    "sentry-access-token": "SENTRY_AUTH_TOKEN={h64}",
    "sentry-org-token": "sntrys" "_eyJpYXQiO{b40}LCJyZWdpb25fdXJs{b40}_{b43}",
    "sentry-user-token": "sntryu" "_{h64}",
    "settlemint-application-access-token": "sm" "_aat_{A16}",
    "settlemint-personal-access-token": "sm" "_pat_{A16}",
    "settlemint-service-access-token": "sm" "_sat_{A16}",
    "shippo-api-token": "shippo" "_live_{h40}",
    "shopify-access-token": "shp" "at_{h32}",
    "shopify-custom-access-token": "shp" "ca_{h32}",
    "shopify-private-app-access-token": "shp" "pa_{h32}",
    "shopify-shared-secret": "shp" "ss_{h32}",
    "sidekiq-secret": "BUNDLE_ENTERPRISE__CONTRIBSYS__COM={h8}:{h8}",
    "sidekiq-sensitive-url": "source 'https://{h8}:{h8}@gems.contribsys.com/'",
    "slack-app-token": "xa" "pp-1-{U11}-{d13}-{h64}",
    "slack-bot-token": "xo" "xb-{d12}-{d13}-{A24}",
    "slack-config-access-token": "xo" "xe.xoxp-1-{U166}",
    "slack-config-refresh-token": "xo" "xe-1-{U146}",
    "slack-legacy-bot-token": "xo" "xb-{d10}-{A24}",
    "slack-legacy-token": "xo" "xs-{d10}-{d10}-{d12}-{h64}",
    "slack-legacy-workspace-token": "xo" "xa-2-{A40}",
    "slack-user-token": "xo" "xp-{d12}-{d12}-{d12}-{h32}",
    "slack-webhook-url": "https://hooks.slack" ".com/services/T{U10}/B{U10}/{A24}",
    "snyk-api-token": "SNYK_TOKEN={uuid}",
    "sonar-api-token": "SONAR_TOKEN={a40}",
    "sourcegraph-access-token": "sg" "p_{h40}",
    "square-access-token": "EA" "AA{w60}",
    "squarespace-access-token": "squarespace_api_key = {uuid}",
    "stripe-access-token": "s" "k_live_{A24}",
    "sumologic-access-id": "SUMO_ACCESS_ID=su{A12}",
    "sumologic-access-token": "SUMO_ACCESS_KEY={a64}",
    "telegram-bot-api-token": "TELEGRAM_BOT_TOKEN={d10}:A" "{w34}",
    "travisci-access-token": "TRAVIS_API_TOKEN={a22}",
    "twilio-api-key": "S" "K{h32}",
    "twitch-api-token": "TWITCH_API_TOKEN={a30}",
    "twitter-access-secret": "twitter_access_secret = {a45}",
    "twitter-access-token": "TWITTER_ACCESS_TOKEN={d19}-{A40}",
    "twitter-api-key": "twitter_api_key = {a25}",
    "twitter-api-secret": "TWITTER_API_SECRET={a50}",
    "twitter-bearer-token": "TWITTER_BEARER_TOKEN=" "A" * 22 + "{A90}",
    "typeform-api-token": "TYPEFORM_API_TOKEN=tf" "p_{w59}",
    "vault-batch-token": "hv" "b.{w140}",
    "vault-service-token": "VAULT_TOKEN=hv" "s.{w100}",
    "yandex-access-token": "yandex_token = t1" ".{w20}.{w86}",
    "yandex-api-key": "YANDEX_API_KEY=AQ" "VN{w38}",
    "yandex-aws-access-token": "yandex_aws_key = Y" "C{w38}",
    "zendesk-secret-key": "ZENDESK_SECRET_KEY={a40}",
}

#: Rules added to gitleaks after that commit (its rule sources and its main branch's config).
GITLEAKS_NEWER: dict[str, str] = {
    "adyen-api-key": "AQ" "Eyhmfx.{w60}",
    "adyen-client-key": "adyen_client_key = test" "_{A34}",
    "airtable-personnal-access-token": "pa" "t{A14}.{h64}",
    "ansible-vault-token": "$ANSIBLE" "_VAULT;1.1;AES256\n{h64}\n{h64}\n",
    "aws-amazon-bedrock-api-key-long-lived": "AB" "SK{b120}",
    "aws-amazon-bedrock-api-key-short-lived": "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t" "{b80}",
    "castai-api-key": "castai" "_v1_{A64}_{A8}",
    "chargebee-access-token": "chargebeeToken := \"test" "_{A32}\"",
    "chieftools-access-token": "ct" "o_{A36}",
    "chieftools-pat": "ct" "p_{A36}",
    "chieftools-refresh-token": "ct" "r_{A36}",
    "claude-code-oauth-token": "CLAUDE_CODE_OAUTH_TOKEN=\"sk-ant" "-oat01-{w95}\"",
    "claude-code-session-url": "see https://claude.ai/code/session" "_{A24} for context",
    "datafactory-shir-token": "IR" "@{uuid}@adf-myapp-001@we@{b43}=",
    "django-insecure-secret-key": "SECRET_KEY = \"django-insecure" "-{A40}\"",
    "looker-client-id": "LOOKER_CLIENT_ID={a20}",
    "looker-client-secret": "looker_client_secret = {a24}",
}

#: The gitleaks rule ids with no text to match, and why.
EXCEPTIONS = {"pkcs12-file": "matches a file name (*.p12, *.pfx), not text; a memory has no file name"}

#: All 218 rule ids of gitleaks' default configuration (config/gitleaks.toml at commit 009e025).
GITLEAKS_RULE_IDS = frozenset(GITLEAKS)  # checked against the count below, so a lost line fails
GITLEAKS_RULE_COUNT = 218

#: detect-secrets 1.5 plugin class -> an example it flags. The entropy plugins flag ordinary
#: sentences and the public-IP plugin finds no secret, so they are listed in DS_EXCEPTIONS.
DETECT_SECRETS: dict[str, str] = {
    "ArtifactoryDetector": "artifactory_password = AP" "{d1}{A40}",
    "AWSKeyDetector": "AK" "IA{z16}",
    "AzureStorageKeyDetector": "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" "{b86}==",
    "BasicAuthDetector": "https://deploy:{A16}@git.example.com/repo.git",
    "CloudantDetector": "cloudant_password = '{h64}'",
    "DiscordBotTokenDetector": "M" "{A23}.{w6}.{w27}",
    "GitHubTokenDetector": "gh" "p_{A36}",
    "GitLabTokenDetector": "gl" "pat-{w20}",
    "IbmCloudIamDetector": "ibm_cloud_iam_api_key = '{w44}'",
    "IbmCosHmacDetector": "ibm_cos_secret_access_key = '{h48}'",
    "JwtTokenDetector": "eyJhbGciOiJIUzI1NiJ9" ".eyJ{A40}.{w43}",
    "KeywordDetector": "password = '{A16}'",
    "MailchimpDetector": "{h32}-us12",
    "NpmDetector": "//registry.npmjs.org/:_auth" "Token={A36}",
    "OpenAIDetector": "s" "k-{A20}T3Blbk" "FJ{A20}",
    "PrivateKeyDetector": "-----BEGIN OPENSSH PRIVATE" " KEY-----\n{b64}\n-----END OPENSSH PRIVATE" " KEY-----",
    "PypiTokenDetector": "pypi-AgEIcHlwaS5" "vcmc{w70}",
    "SendGridDetector": "S" "G.{w22}.{w43}",
    "SlackDetector": "xo" "xb-{d12}-{d13}-{A24}",
    "SoftlayerDetector": "softlayer_api_key = {a64}",
    "SquareOAuthDetector": "sq0" "csp-{w43}",
    "StripeDetector": "r" "k_live_{A24}",
    "TelegramBotTokenDetector": "{d10}:A" "{w34}",
    "TwilioKeyDetector": "S" "K{h32}",
}
DS_EXCEPTIONS = {
    "Base64HighEntropyString": "flags ordinary sentences and identifiers; keyword and format rules cover keys",
    "HexHighEntropyString": "flags commit hashes and checksums; keyword and format rules cover keys",
    "IPPublicDetector": "a public IP address is not a credential",
}


def _contexts(example: str) -> list[str]:
    """The example alone, in prose, and in a JSON string."""
    return [example, f"note: {example} (from the deploy notes)", '{"value": "' + example.replace("\"", "\\\"") + '"}']


def _assert_caught(rule: str, example: str) -> None:
    for i, text in enumerate(_contexts(example)):
        out = redact(text).text
        # Every random slot's characters must be gone: no run of 8+ of them survives.
        assert "[REDACTED:" in out, (rule, i, text)
        for run in re.findall(r"[A-Za-z0-9+/_\-]{12,}", text):
            if any(c.isdigit() for c in run) and any(c.isalpha() for c in run) and run in out:
                if len(set(run)) > 8 and run not in example.split("=", 1)[0]:
                    raise AssertionError(f"{rule}: {run!r} survived in {out!r}")


def test_every_gitleaks_rule_has_a_case() -> None:
    assert len(GITLEAKS_RULE_IDS) == GITLEAKS_RULE_COUNT
    assert set(EXCEPTIONS) <= GITLEAKS_RULE_IDS


@pytest.mark.parametrize("rule", sorted(set(GITLEAKS) - set(EXCEPTIONS)))
def test_gitleaks_rule_is_caught(rule: str) -> None:
    for seed in range(3):
        _assert_caught(rule, fill(GITLEAKS[rule], f"{rule}-{seed}"))


@pytest.mark.parametrize("rule", sorted(GITLEAKS_NEWER))
def test_newer_gitleaks_rule_is_caught(rule: str) -> None:
    for seed in range(3):
        _assert_caught(rule, fill(GITLEAKS_NEWER[rule], f"{rule}-{seed}"))


def test_every_detect_secrets_plugin_has_a_case() -> None:
    pytest.importorskip("detect_secrets")
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins = {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}
    assert plugins == set(DETECT_SECRETS) | set(DS_EXCEPTIONS)


@pytest.mark.parametrize("plugin", sorted(DETECT_SECRETS))
def test_detect_secrets_plugin_case_is_caught(plugin: str) -> None:
    for seed in range(3):
        _assert_caught(plugin, fill(DETECT_SECRETS[plugin], f"{plugin}-{seed}"))


@pytest.mark.parametrize("plugin", sorted(DETECT_SECRETS))
def test_detect_secrets_plugin_flags_its_own_case(plugin: str) -> None:
    """The examples are real ones for each plugin: the plugin itself flags them."""
    pytest.importorskip("detect_secrets")
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    cls = next(c for c in get_mapping_from_secret_type_to_class().values() if c.__name__ == plugin)
    example = fill(DETECT_SECRETS[plugin], f"{plugin}-0")
    assert any(cls().analyze_string(line) for line in example.splitlines()), example

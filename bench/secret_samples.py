"""The labelled secret set for bench/secrets_fp.py and tests/test_redact.py, written by the team
from the providers' documented token formats (not from any scanner's rule tests).

* ``positives()``: (kind, text, secret) -- a fake, format-valid secret of each kind placed in
  prose, code, shell history and config files (env, YAML, TOML, INI, JSON). Provider-named
  formats (a Twilio auth token is just 32 hex digits) are placed next to the provider's name,
  as they appear in real configs.
* ``negatives()``: ordinary technical texts plus look-alikes -- commit hashes, UUIDs (also
  next to provider names: an app id is not a key), base64 test data, digests, ids of cloud
  resources, placeholders such as ``sk-xxxx``, ``<your-token>``, ``AKIAXXXXXXXXXXXXXXXX``, and
  references (``$TOKEN``, ``${{ secrets.X }}``, ``os.environ[...]``).

Secrets are assembled from pieces at run time with a fixed seed, so this file never
contains a string a secret scanner would flag, and every run builds the same set.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import string
import uuid

SEED = 20240601
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits
LOWER_DIGITS = string.ascii_lowercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def rand(self, n: int, alphabet: str = ALNUM) -> str:
        """n characters; for mixed alphabets always with a digit and a letter (as real keys have)."""
        while True:
            s = "".join(self.rng.choice(alphabet) for _ in range(n))
            needs = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
            if not needs or n < 4 or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
                return s

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128)))

    def b64url_json(self, obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def J(*parts: str) -> str:
    """Join pieces: keeps whole prefixes out of this file's text."""
    return "".join(parts)


# ------------------------------------------------------------------------------ positives

def _digits(g: _Gen, n: int) -> str:
    return str(g.rng.randint(10 ** (n - 1), 10**n - 1))


def prefixed(g: _Gen) -> dict[str, list]:
    """kind -> generators of secrets that carry their own format (no keyword needed)."""
    r = g.rand
    return {
        "aws-access-key-id": [lambda: J("AK", "IA") + r(16, UPPER_DIGITS), lambda: J("AS", "IA") + r(16, UPPER_DIGITS)],
        "aws-mws-key": [lambda: J("amzn", ".mws.") + g.uuid()],
        "google-api-key": [lambda: J("AI", "za") + r(35, URLSAFE)],
        "google-oauth-secret": [lambda: J("GOCS", "PX-") + r(28, URLSAFE)],
        "google-oauth-token": [lambda: J("ya", "29.") + r(120, URLSAFE)],
        "google-refresh-token": [lambda: J("1//", "0") + r(100, URLSAFE)],
        "azure-client-secret": [lambda: r(3) + _digits(g, 1) + J("Q", "~") + r(34, ALNUM + "_~.-")],
        "digitalocean-token": [lambda: J("do", "p_v1_") + r(64, HEX), lambda: J("do", "o_v1_") + r(64, HEX)],
        "heroku-api-key": [lambda: J("HR", "KU-") + r(60, URLSAFE)],
        "alibaba-access-key-id": [lambda: J("LT", "AI") + r(20)],
        "tencent-secret-id": [lambda: J("AK", "ID") + r(32)],
        "scaleway-access-key": [lambda: J("SC", "W") + r(17, UPPER_DIGITS)],
        "vault-token": [lambda: J("hv", "s.") + r(90, URLSAFE), lambda: J("hv", "b.") + r(120, URLSAFE)],
        "terraform-cloud-token": [lambda: r(14) + J(".atlas", "v1.") + r(67, ALNUM + "_=-")],
        "pulumi-token": [lambda: J("pu", "l-") + r(40, HEX)],
        "doppler-token": [lambda: J("dp", ".pt.") + r(43), lambda: J("dp", ".st.") + r(43)],
        "1password-service-token": [lambda: J("op", "s_") + "eyJ" + r(200, B64)],
        "cloudflare-origin-ca-key": [lambda: J("v1", ".0-") + r(24, HEX) + "-" + r(146, HEX)],
        "tailscale-key": [lambda: J("tsk", "ey-auth-") + r(11) + "-" + r(33), lambda: J("tsk", "ey-api-") + r(12) + "-" + r(30)],
        "openshift-token": [lambda: J("sha2", "56~") + r(43, URLSAFE)],
        "fly-token": [lambda: J("fo", "1_") + r(43, URLSAFE)],
        "render-api-key": [lambda: J("rn", "d_") + r(32)],
        "netlify-token": [lambda: J("nf", "p_") + r(36)],
        "supabase-key": [lambda: J("sb", "p_") + r(40, HEX), lambda: J("sb_", "secret_") + r(32, URLSAFE)],
        "planetscale-token": [lambda: J("psc", "ale_tkn_") + r(43, URLSAFE), lambda: J("psc", "ale_pw_") + r(43, URLSAFE)],
        "databricks-token": [lambda: J("da", "pi") + r(32, HEX)],
        "octopus-deploy-key": [lambda: J("AP", "I-") + r(26, UPPER_DIGITS)],
        "harness-token": [lambda: J("pa", "t.") + r(22, URLSAFE) + "." + r(24, HEX) + "." + r(20)],
        "github-token": [lambda: J("gh", "p_") + r(36), lambda: J("gh", "s_") + r(36),
                         lambda: J("github", "_pat_") + r(22) + "_" + r(59)],
        "gitlab-token": [lambda: J("gl", "pat-") + r(20, URLSAFE), lambda: J("GR134", "8941") + r(20, URLSAFE),
                         lambda: J("gl", "dt-") + r(20, URLSAFE)],
        "atlassian-api-token": [lambda: J("ATA", "TT3") + r(180, URLSAFE + "=")],
        "bitbucket-app-password": [lambda: J("AT", "BB") + r(32)],
        "sourcegraph-token": [lambda: J("sg", "p_") + r(16, HEX) + "_" + r(40, HEX), lambda: J("sg", "p_") + r(40, HEX)],
        "sonar-token": [lambda: J("sq", "p_") + r(40, HEX), lambda: J("sq", "u_") + r(40, HEX)],
        "circleci-token": [lambda: J("CCIP", "AT_") + r(22) + "_" + r(40, HEX)],
        "buildkite-token": [lambda: J("bk", "ua_") + r(40, HEX)],
        "docker-hub-token": [lambda: J("dck", "r_pat_") + r(27, URLSAFE)],
        "npm-token": [lambda: J("np", "m_") + r(36)],
        "pypi-token": [lambda: J("py", "pi-AgEIcHlwaS5vcmc") + r(80, URLSAFE)],
        "rubygems-token": [lambda: J("rubyg", "ems_") + r(48, HEX)],
        "nuget-key": [lambda: J("oy", "2") + r(43, LOWER_DIGITS)],
        "crates-io-token": [lambda: J("ci", "o") + r(32)],
        "clojars-token": [lambda: J("CLOJ", "ARS_") + r(60, LOWER_DIGITS)],
        "packagist-token": [lambda: J("packag", "ist_uut_") + r(68, HEX)],
        "artifactory-token": [lambda: J("AK", "C") + r(70), lambda: J("cmVmdGtuOjAx", "Oj") + r(50),
                              lambda: J("AP", "6") + r(12)],
        "prefect-key": [lambda: J("pn", "u_") + r(36)],
        "readme-key": [lambda: J("rd", "me_") + r(70, LOWER_DIGITS)],
        "anthropic-api-key": [lambda: J("sk", "-ant-api03-") + r(93, URLSAFE) + "AA",
                              lambda: J("sk", "-ant-admin01-") + r(93, URLSAFE) + "AA"],
        "openai-api-key": [lambda: J("sk", "-proj-") + r(64, URLSAFE), lambda: J("sk", "-") + r(20) + J("T3Blbk", "FJ") + r(20),
                           lambda: J("sk", "-svcacct-") + r(64, URLSAFE)],
        "huggingface-token": [lambda: J("h", "f_") + r(34), lambda: J("api", "_org_") + r(34)],
        "replicate-token": [lambda: J("r", "8_") + r(37)],
        "groq-api-key": [lambda: J("gs", "k_") + r(52)],
        "perplexity-api-key": [lambda: J("pp", "lx-") + r(48)],
        "xai-api-key": [lambda: J("xa", "i-") + r(80)],
        "langsmith-key": [lambda: J("ls", "v2_pt_") + r(32, HEX) + "_" + r(10, HEX)],
        "pinecone-api-key": [lambda: J("pc", "sk_") + r(6) + "_" + r(60, ALNUM + "_")],
        "stripe-key": [lambda: J("sk", "_live_") + r(24), lambda: J("rk", "_test_") + r(24), lambda: J("wh", "sec_") + r(32)],
        "square-token": [lambda: J("sq0", "atp-") + r(22, URLSAFE), lambda: J("sq0", "csp-") + r(43, URLSAFE),
                         lambda: J("EA", "AA") + r(60, URLSAFE)],
        "braintree-token": [lambda: J("access_", "token$production$") + r(16, LOWER_DIGITS) + "$" + r(32, HEX)],
        "shopify-token": [lambda: J("sh", "pat_") + r(32, HEX), lambda: J("sh", "pss_") + r(32, HEX)],
        "plaid-token": [lambda: J("access-", "sandbox-") + g.uuid()],
        "flutterwave-key": [lambda: J("FLWS", "ECK-") + r(32, HEX) + "-X"],
        "shippo-token": [lambda: J("ship", "po_live_") + r(40, HEX)],
        "easypost-key": [lambda: J("EZ", "AK") + r(54)],
        "duffel-token": [lambda: J("duf", "fel_test_") + r(43, URLSAFE)],
        "slack-token": [lambda: J("xo", "xb-") + _digits(g, 13) + "-" + _digits(g, 13) + "-" + r(24),
                        lambda: J("xo", "xp-") + _digits(g, 10) + "-" + _digits(g, 12) + "-" + _digits(g, 13) + "-" + r(32, HEX)],
        "slack-webhook": [lambda: J("https://hooks.slack.com/", "services/T") + r(8, UPPER_DIGITS) + "/B" + r(8, UPPER_DIGITS) + "/" + r(24)],
        "discord-webhook": [lambda: J("https://discord.com/api/", "webhooks/") + _digits(g, 18) + "/" + r(68, URLSAFE)],
        "teams-webhook": [lambda: J("https://contoso.webhook.office.com/", "webhookb2/") + g.uuid() + "@" + g.uuid()
                          + "/IncomingWebhook/" + r(32, HEX) + "/" + g.uuid()],
        "discord-bot-token": [lambda: g.rng.choice("MNO") + r(23, URLSAFE) + "." + r(6, URLSAFE) + "." + r(38, URLSAFE)],
        "telegram-bot-token": [lambda: _digits(g, 9) + J(":A", "A") + r(33, URLSAFE)],
        "twilio-key": [lambda: J("S", "K") + r(32, HEX)],
        "twilio-account-sid": [lambda: J("A", "C") + r(32, HEX)],
        "sendgrid-key": [lambda: J("S", "G.") + r(22, URLSAFE) + "." + r(43, URLSAFE)],
        "mailgun-key": [lambda: J("ke", "y-") + r(32, HEX), lambda: J("pub", "key-") + r(32, HEX)],
        "mailchimp-key": [lambda: r(32, HEX) + J("-u", "s") + str(g.rng.randint(1, 21))],
        "mandrill-key": [lambda: J("m", "d-") + r(22, URLSAFE)],
        "brevo-key": [lambda: J("xkey", "sib-") + r(64, HEX) + "-" + r(16)],
        "firebase-fcm-key": [lambda: J("AA", "AA") + r(7, URLSAFE) + ":" + r(140, URLSAFE)],
        "notion-token": [lambda: J("sec", "ret_") + r(43), lambda: J("nt", "n_") + _digits(g, 11) + r(35)],
        "airtable-token": [lambda: J("pa", "t") + r(14) + "." + r(64, HEX)],
        "linear-api-key": [lambda: J("lin", "_api_") + r(40)],
        "clickup-token": [lambda: J("p", "k_") + _digits(g, 8) + "_" + r(32, UPPER_DIGITS)],
        "figma-token": [lambda: J("fi", "gd_") + r(40, URLSAFE)],
        "typeform-token": [lambda: J("tf", "p_") + r(44, URLSAFE) + "_" + r(14, URLSAFE)],
        "contentful-token": [lambda: J("CFP", "AT-") + r(43, URLSAFE)],
        "dropbox-token": [lambda: J("s", "l.") + r(140, URLSAFE)],
        "postman-key": [lambda: J("PM", "AK-") + r(24, HEX) + "-" + r(34, HEX)],
        "hubspot-token": [lambda: J("pa", "t-na1-") + g.uuid()],
        "frameio-token": [lambda: J("fio", "-u-") + r(64, URLSAFE)],
        "yandex-api-key": [lambda: J("AQ", "VN") + r(37, URLSAFE)],
        "infracost-key": [lambda: J("ic", "o-") + r(32)],
        "scalingo-token": [lambda: J("tk-", "us-") + r(48, URLSAFE)],
        "settlemint-token": [lambda: J("sm", "_pat_") + r(16)],
        "adobe-client-secret": [lambda: J("p8", "e-") + r(32)],
        "intra42-secret": [lambda: J("s-s4", "t2ud-") + r(64, HEX)],
        "defined-networking-key": [lambda: J("dnk", "ey-") + r(26, LOWER_DIGITS) + "-" + r(52, LOWER_DIGITS)],
        "mapbox-secret-token": [lambda: J("sk", ".eyJ") + r(40, URLSAFE) + "." + r(22, URLSAFE)],
        "facebook-access-token": [lambda: J("EA", "AB") + r(150)],
        "instagram-token": [lambda: J("IG", "QV") + r(150, URLSAFE)],
        "twitter-bearer-token": [lambda: "A" * 22 + r(90, ALNUM + "%")],
        "salesforce-token": [lambda: J("00", "D") + r(15) + "!" + r(96, ALNUM + "._")],
        "grafana-token": [lambda: J("gl", "c_") + r(120, B64) + "=", lambda: J("gl", "sa_") + r(32) + "_" + r(8, HEX)],
        "newrelic-key": [lambda: J("NR", "AK-") + r(27, UPPER_DIGITS), lambda: r(36, HEX) + J("NR", "AL")],
        "sentry-token": [lambda: J("sntr", "yu_") + r(64, HEX)],
        "dynatrace-token": [lambda: J("dt0", "c01.") + r(24, UPPER_DIGITS) + "." + r(64, UPPER_DIGITS)],
        "memvault-token": [lambda: J("mv", "t_") + r(43, URLSAFE)],
        "age-secret-key": [lambda: J("AGE-SECRET", "-KEY-1") + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")],
        "jwt": [lambda: g.b64url_json({"alg": "HS256", "typ": "JWT"}) + "." + g.b64url_json(
            {"sub": r(8), "iat": g.rng.randint(10**9, 2 * 10**9)}) + "." + r(43, URLSAFE)],
        "1password-secret-key": [lambda: "-".join(["A3", r(6, UPPER_DIGITS), r(11, UPPER_DIGITS), r(5, UPPER_DIGITS),
                                                   r(5, UPPER_DIGITS), r(5, UPPER_DIGITS)])],
        "maxmind-license-key": [lambda: r(6) + "_" + r(29) + J("_m", "mk")],
        "aws-bedrock-api-key": [lambda: J("AB", "SK") + r(120, B64)],
        "castai-api-key": [lambda: J("cast", "ai_v1_") + r(64) + "_" + r(8)],
        "django-secret-key": [lambda: J("django-", "insecure-") + r(40)],
        "chieftools-token": [lambda: J("ct", "p_") + r(36), lambda: J("ct", "o_") + r(40)],
        "adyen-api-key": [lambda: J("AQ", "E") + r(8, LOWER_DIGITS) + "." + r(60, URLSAFE)],
        "clickhouse-api-secret": [lambda: J("4b", "1d") + r(38)],
    }


def keyed(g: _Gen) -> dict[str, tuple[tuple[str, ...], object]]:
    """kind -> (provider names as written in configs, generator): values with no format of their own."""
    r = g.rand
    return {
        "aws-secret-access-key": (("aws", "AWS"), lambda: r(40, B64)),
        "aws-session-token": (("AWS_SESSION_TOKEN", "aws_session_token"), lambda: r(300, B64 + "=")),
        "gcp-private-key-id": (("private_key_id",), lambda: r(40, HEX)),
        "ibm-cloud-api-key": (("ibm_cloud", "IBM", "cloudant"), lambda: r(44, URLSAFE)),
        "ibm-cos-hmac-secret": (("cos_hmac", "secret_access_key"), lambda: r(48, HEX)),
        "softlayer-api-key": (("softlayer", "SOFTLAYER"), lambda: r(64, LOWER_DIGITS)),
        "cloudflare-api-token": (("cloudflare", "CLOUDFLARE"), lambda: r(40, URLSAFE)),
        "cloudflare-api-key": (("cloudflare", "X-Auth-Key"), lambda: r(37, HEX)),
        "fastly-token": (("fastly", "FASTLY"), lambda: r(32, URLSAFE)),
        "linode-token": (("linode", "LINODE"), lambda: r(64, HEX)),
        "vultr-api-key": (("vultr", "VULTR"), lambda: r(36, UPPER_DIGITS)),
        "heroku-api-key": (("heroku", "HEROKU"), g.uuid),
        "alibaba-secret": (("alibaba", "aliyun", "AccessKeySecret"), lambda: r(30)),
        "azure-devops-token": (("azure_devops", "AZURE_DEVOPS"), lambda: r(52, "abcdefghijklmnopqrstuvwxyz234567")),
        "snyk-token": (("snyk", "SNYK"), g.uuid),
        "circleci-token": (("circleci", "CIRCLECI"), lambda: r(40, HEX)),
        "travis-token": (("travis", "TRAVIS"), lambda: r(22)),
        "codecov-token": (("codecov", "CODECOV"), g.uuid),
        "drone-token": (("drone", "DRONE"), lambda: r(32)),
        "netlify-token": (("netlify", "NETLIFY"), lambda: r(43, URLSAFE)),
        "vercel-token": (("vercel", "VERCEL"), lambda: r(24)),
        "jfrog-token": (("jfrog", "artifactory"), lambda: r(64)),
        "jenkins-token": (("jenkins", "JENKINS"), lambda: r(34, HEX)),
        "cohere-api-key": (("cohere", "COHERE"), lambda: r(40)),
        "mistral-api-key": (("mistral", "MISTRAL"), lambda: r(32)),
        "wandb-api-key": (("wandb", "WANDB"), lambda: r(40, HEX)),
        "assemblyai-key": (("assemblyai", "ASSEMBLYAI"), lambda: r(32, HEX)),
        "twilio-auth-token": (("twilio", "TWILIO"), lambda: r(32, HEX)),
        "mailgun-key": (("mailgun", "MAILGUN"), lambda: r(32, HEX) + "-" + r(8, HEX) + "-" + r(8, HEX)),
        "mailjet-key": (("mailjet", "MAILJET"), lambda: r(32, HEX)),
        "postmark-token": (("postmark", "POSTMARK"), g.uuid),
        "datadog-api-key": (("datadog", "DD_API_KEY", "DD_APP_KEY"), lambda: r(32, HEX)),
        "rollbar-token": (("rollbar", "ROLLBAR"), lambda: r(32, HEX)),
        "bugsnag-key": (("bugsnag", "BUGSNAG"), lambda: r(32, HEX)),
        "splunk-hec-token": (("splunk", "SPLUNK"), g.uuid),
        "opsgenie-key": (("opsgenie", "OPSGENIE"), g.uuid),
        "pagerduty-key": (("pagerduty", "PAGERDUTY"), lambda: r(20, URLSAFE)),
        "algolia-key": (("algolia", "ALGOLIA"), lambda: r(32, HEX)),
        "launchdarkly-key": (("launchdarkly", "LAUNCHDARKLY"), lambda: "sdk-" + g.uuid()),
        "okta-token": (("okta", "OKTA"), lambda: "00" + r(40, URLSAFE)),
        "auth0-secret": (("auth0", "AUTH0"), lambda: r(64, URLSAFE)),
        "zendesk-token": (("zendesk", "ZENDESK"), lambda: r(40)),
        "hubspot-key": (("hubspot", "HUBSPOT"), g.uuid),
        "asana-token": (("asana", "ASANA"), lambda: "1/" + _digits(g, 16) + ":" + r(32, HEX)),
        "trello-token": (("trello", "TRELLO"), lambda: r(64, HEX)),
        "twitter-secret": (("twitter", "TWITTER"), lambda: r(50)),
        "facebook-secret": (("facebook", "FB_APP_SECRET"), lambda: r(32, HEX)),
        "gocardless-token": (("gocardless", "GOCARDLESS"), lambda: "live_" + r(40, URLSAFE)),
        "ngrok-token": (("ngrok", "NGROK"), lambda: r(27) + "_" + r(21)),
        "confluent-secret": (("confluent", "CONFLUENT"), lambda: r(64, B64)),
        "mongodb-atlas-key": (("mongodb_atlas", "ATLAS"), g.uuid),
        "segment-key": (("segment", "SEGMENT"), lambda: r(32)),
        "zoom-secret": (("zoom", "ZOOM"), lambda: r(32)),
        "adafruit-key": (("adafruit", "ADAFRUIT"), lambda: "aio_" + r(28)),
        "airtable-key": (("airtable", "AIRTABLE"), lambda: "key" + r(14)),
        "amplitude-key": (("amplitude", "AMPLITUDE"), lambda: r(32, HEX)),
        "azure-key": (("azure_search", "AZURE_OPENAI"), lambda: r(32)),
        "beamer-key": (("beamer", "BEAMER"), lambda: "b_" + r(44, URLSAFE + "=")),
        "binance-key": (("binance", "BINANCE"), lambda: r(64)),
        "box-token": (("box_dev", "BOX_DEV"), lambda: r(32)),
        "coinbase-key": (("coinbase", "COINBASE"), lambda: r(64)),
        "contentstack-token": (("contentstack", "CONTENTSTACK"), lambda: "cs" + r(32, HEX)),
        "honeycomb-key": (("honeycomb", "HONEYCOMB"), lambda: r(22)),
        "intercom-token": (("intercom", "INTERCOM"), lambda: r(60, URLSAFE + "=")),
        "linkedin-secret": (("linkedin", "LINKEDIN"), lambda: r(16)),
        "lob-key": (("lob_api", "LOB_API"), lambda: "live_" + r(35, HEX)),
        "mixpanel-secret": (("mixpanel", "MIXPANEL"), lambda: r(32, HEX)),
        "razorpay-secret": (("razorpay", "RAZORPAY"), lambda: r(24)),
        "sendbird-token": (("sendbird", "SENDBIRD"), lambda: r(40, HEX)),
        "sumologic-key": (("sumologic", "SUMO"), lambda: r(64)),
        "bittrex-key": (("bittrex", "BITTREX"), lambda: r(32)),
        "etsy-key": (("etsy", "ETSY"), lambda: r(24)),
        "finicity-key": (("finicity", "FINICITY"), lambda: r(20)),
        "finnhub-key": (("finnhub", "FINNHUB"), lambda: r(20)),
        "flickr-key": (("flickr", "FLICKR"), lambda: r(32)),
        "freshbooks-token": (("freshbooks", "FRESHBOOKS"), lambda: r(64)),
        "gitter-token": (("gitter", "GITTER"), lambda: r(40, URLSAFE)),
        "kraken-key": (("kraken", "KRAKEN"), lambda: r(88, B64)),
        "kucoin-key": (("kucoin", "KUCOIN"), lambda: r(24, HEX)),
        "mattermost-token": (("mattermost", "MATTERMOST"), lambda: r(26)),
        "messagebird-key": (("messagebird", "MESSAGEBIRD"), lambda: r(25)),
        "nytimes-key": (("nytimes", "NYTIMES"), lambda: r(32)),
        "rapidapi-key": (("rapidapi", "X-RapidAPI-Key"), lambda: r(50, URLSAFE)),
        "squarespace-key": (("squarespace", "SQUARESPACE"), g.uuid),
        "twitch-token": (("twitch", "TWITCH"), lambda: r(30, LOWER_DIGITS)),
        "plaid-secret": (("plaid", "PLAID"), lambda: r(30, HEX)),
        "adobe-client-id": (("adobe", "ADOBE"), lambda: r(32, HEX)),
        "discord-client-secret": (("discord", "DISCORD"), lambda: r(32, URLSAFE)),
        "bitbucket-client-secret": (("bitbucket", "BITBUCKET"), lambda: r(64, URLSAFE)),
        "cloudant-password": (("cloudant", "CLOUDANT"), lambda: r(64, HEX)),
        "github-oauth-secret": (("github_client_secret", "GITHUB_CLIENT_SECRET"), lambda: r(40, HEX)),
        "asana-client-id": (("asana", "ASANA"), lambda: _digits(g, 16)),
        "discord-client-id": (("discord", "DISCORD"), lambda: _digits(g, 18)),
        "adyen-client-key": (("adyen", "ADYEN"), lambda: "live_" + r(34)),
        "chargebee-token": (("chargebee", "CHARGEBEE"), lambda: "test_" + r(32)),
        "looker-client-secret": (("looker", "LOOKER"), lambda: r(24)),
    }


PLAIN_CONTEXTS = {
    "prose": ["Use {s} for the staging deploy.", "Note to self: the key is {s} (rotate after the demo).",
              "I pasted {s} into the CI settings yesterday.", "The bot's credential is {s}; it expires in June.",
              "{s}"],
    "code": ['client = Client(api_key="{s}")', "const creds = '{s}';", 'os.environ.setdefault("CRED", "{s}")',
             'let auth = "{s}"', "headers = {{'X-Auth': '{s}'}}"],
    "shell": ["$ export CRED={s}", "curl -s https://api.example.com/v1/me -H 'X-Api-Key: {s}'",
              "echo {s} | docker login --password-stdin registry.example.com", "gh auth login --with-token <<< {s}"],
    "config": ["token: {s}", 'api_key = "{s}"', '{{"key": "{s}"}}', "CRED={s}", "[default]\ntoken = {s}"],
}
KEYED_CONTEXTS = {
    "config": ["{P}_API_KEY={s}", '{p}:\n  api_key: "{s}"', '[{p}]\ntoken = "{s}"', '{{"{p}_token": "{s}"}}'],
    "shell": ["export {P}_TOKEN='{s}'", "$ {P}_SECRET={s} ./deploy.sh"],
    "code": ['{p}_key = "{s}"', 'client = {p}.Client(token="{s}")'],
    "prose": ["the {p} key is {s}", "{p} token: {s} (prod)"],
}


def _pem(g: _Gen, kind: str) -> str:
    body = "\n".join(g.rand(64, B64) for _ in range(4)) + "\n" + g.rand(20, B64) + "=="
    return J("-----BEGIN ", kind, "PRIVATE", " KEY-----\n") + body + J("\n-----END ", kind, "PRIVATE", " KEY-----")


def _structured(g: _Gen) -> list[tuple[str, str, str]]:
    """(kind, text, secret) for formats that live inside a structure: keys, URLs, headers, command lines."""
    r = g.rand
    out: list[tuple[str, str, str]] = []
    for kind in ("RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "):
        key = _pem(g, kind)
        out.append(("private-key", f"deploy key below\n{key}\n", key))
    pgp = J("-----BEGIN PGP PRIVATE", " KEY BLOCK-----\n\n") + "\n".join(r(64, B64) for _ in range(3)) + \
        J("\n-----END PGP PRIVATE", " KEY BLOCK-----")
    out.append(("private-key", pgp, pgp))
    putty = J("PuTTY-User-Key-File-", "2: ssh-rsa\nEncryption: none\nComment: ci\nPublic-Lines: 2\n") + r(64, B64) + "\n" + \
        r(40, B64) + "\nPrivate-Lines: 2\n" + r(64, B64) + "\n" + r(30, B64) + "\nPrivate-MAC: " + r(40, HEX)
    out.append(("private-key", putty, putty))
    for name in ("BUNDLE_GEMS__CONTRIBSYS__COM", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM"):
        cred = r(8, HEX) + ":" + r(8, HEX)
        out.append(("sidekiq-secret", f"export {name}={cred}", cred))
    vault = "\n".join(r(80, HEX) for _ in range(3))
    out.append(("ansible-vault", J("$ANSIBLE", "_VAULT;1.1;AES256\n") + vault, vault))
    session = r(24)
    out.append(("claude-code-session-url", f"resume at https://claude.ai/code/session_{session} later", session))
    shir = r(43, B64) + "="
    out.append(("datafactory-shir-key", J("I", "R@") + g.uuid() + "@adf-prod-002@we@" + shir, shir))
    cookie = r(32, LOWER_DIGITS)
    out.append(("gitlab-session-cookie", J("Cookie: _gitlab", "_session=") + cookie, cookie))
    sa = _pem(g, "").replace("\n", "\\n")
    out.append(("private-key", '{"type": "service_account", "private_key": "' + sa + '", "client_email": "ci@p.iam"}', sa))
    for _ in range(3):
        out.append(("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + (k := r(86, B64) + "==")
                    + ";EndpointSuffix=core.windows.net", k))
    out.append(("azure-sas-key", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey="
                + (k := r(43, B64) + "="), k))
    out.append(("azure-sas-token", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2026-01-01&sig="
                + (k := r(43, ALNUM) + "%3D"), k))
    for _ in range(3):
        pw = r(14, ALNUM + "!#^")
        url_pw = pw.replace("#", "%23")  # a URL carries '#' percent-encoded
        out += [
            ("url-password", f"postgres://svc:{url_pw}@db.internal:5432/app", url_pw),
            ("url-password", f"mongodb+srv://app:{url_pw}@cluster0.example.mongodb.net/prod", url_pw),
            ("url-password", f"git remote add origin https://deploy:{url_pw}@git.example.com/org/repo.git", url_pw),
            ("url-password", f"amqp://guest:{url_pw}@mq.internal:5672/", url_pw),
            ("url-password", f"REDIS_URL=redis://:{url_pw}@cache:6379/0", url_pw),
        ]
        dsn = r(32, HEX)
        out.append(("url-credential", f"SENTRY_DSN=https://{dsn}@o{_digits(g, 6)}.ingest.sentry.io/{_digits(g, 7)}", dsn))
        out += [
            ("password", f"curl -u admin:{pw} https://ci.example.com/api/json", pw),
            ("password", f"$ mysql -h db -u root -p{pw} app < dump.sql", pw),
            ("password", f"sshpass -p '{pw}' ssh deploy@10.0.0.5", pw),
            ("password", f"docker login -u ci -p {pw} registry.example.com", pw),
            ("password", f"redis-cli -h cache -a {pw} ping", pw),
            ("password", f"CREATE USER app IDENTIFIED BY '{pw}';", pw),
            ("password", f"ALTER ROLE app WITH PASSWORD '{pw}';", pw),
            ("password", f"machine api.example.com login ci password {pw}", pw),
            ("password", f"keytool -importkeystore -srckeystore a.p12 -storepass {pw}", pw),
            ("password", f"DB_PASSWORD={pw}", pw),
            ("password", f'{{"user": "svc", "password": "{pw}"}}', pw),
            ("password", f"password: {pw}\n", pw),
            ("password", f'password = "{pw}"  # settings.toml', pw),
            ("password", f'$password = "{pw}";', pw),
            ("password", f'NSString *password = @"{pw}";', pw),
            ("password", f'char password[] = "{pw}";', pw),
            ("password", f'password := "{pw}"', pw),
            ("password", f"Server=db;User Id=sa;Password={pw};", pw),
            ("password", f"the staging password is '{pw}'", pw),
            ("secret", f"client_secret = '{pw}'", pw),
            ("secret", f"SECRET_KEY_BASE={r(64, HEX)}", None),
            ("secret", f"auth: {r(40, URLSAFE)}", None),
            ("api-key", f"X-API-Key: {pw}", pw),
            ("api-key", f'"apiKey": "{pw}"', pw),
            ("token", f"export AUTH_TOKEN={pw}", pw),
            ("token", f"access_token: {pw}", pw),
            ("bearer-token", f"curl -H 'Authorization: Bearer {(b := r(40, ALNUM + '-._~'))}' https://api.example.com", b),
            ("basic-auth", "Authorization: Basic " + (b := base64.b64encode(J("deploy:", r(16)).encode()).decode()), b),
        ]
    return [(k, t, s if s is not None else t.split("=", 1)[-1].split(": ", 1)[-1]) for k, t, s in out]


def positives() -> list[tuple[str, str, str, str]]:
    """(kind, context, text, secret) for every planted secret."""
    g = _Gen(SEED)
    out: list[tuple[str, str, str, str]] = []
    for n, (kind, gens) in enumerate(prefixed(g).items()):
        for i in range(3):
            secret = gens[i % len(gens)]()
            context = list(PLAIN_CONTEXTS)[(n + i) % 4]
            template = g.rng.choice(PLAIN_CONTEXTS[context])
            out.append((kind, context, template.format(s=secret), secret))
    for n, (kind, (names, gen)) in enumerate(keyed(g).items()):
        for i in range(3):
            secret = gen()  # type: ignore[operator]
            name = names[i % len(names)]
            context = list(KEYED_CONTEXTS)[(n + i) % 4]
            template = g.rng.choice(KEYED_CONTEXTS[context])
            out.append((kind, context, template.format(s=secret, p=name.lower(), P=name.upper()), secret))
    out += [(kind, "structured", text, secret) for kind, text, secret in _structured(g)]
    return out


def _ordinary(g: _Gen) -> list[str]:
    """Ordinary technical texts (the corpus the 0-false-positive figure was first measured on)."""
    files = ["server/search.py", "server/db.py", "tests/test_store.py", "README.md", "pyproject.toml",
             "src/app/components/Button.tsx", "cmd/api/main.go", "migrations/0003_add_index.sql"]
    funcs = ["hybrid_search", "rank_fusion", "open_db", "load_settings", "parse_token_stream",
             "reset_password_flow", "rotate_api_keys", "TokenBucket.acquire", "KeyError", "primary_key"]
    verbs = ["Fix", "Refactor", "Add", "Remove", "Speed up", "Document", "Revert", "Harden"]
    topics = ["the token bucket limiter", "the password reset flow", "API key rotation docs",
              "secret scanning in CI", "the key-value cache", "max_tokens handling", "auth token refresh",
              "the credentials page copy", "FTS5 tokenizer config", "sqlite-vec loading"]
    versions = ["1.2.3", "0.1.6", "2.0.0-rc.1", "3.11.7", "4.17.21", "1.4.2+build.15", "v0.9.0", "2024.1"]

    out: list[str] = []
    # commit messages with full and short hashes
    for v, t in itertools.product(verbs, topics):
        sha = g.rand(40, HEX)
        short = sha[: g.rng.choice([7, 8, 10, 12])]
        out.append(f"{v} {t} ({short}); follows {sha}.")
    # UUIDs, versions, paths
    for f, ver in itertools.product(files, versions):
        out.append(f"Memory {uuid.UUID(int=g.rng.getrandbits(128))} notes {f} changed in {ver}.")
    # base64 test data and digests
    for _ in range(40):
        blob = base64.b64encode(bytes(g.rng.getrandbits(8) for _ in range(g.rng.randint(12, 48)))).decode()
        out.append(f"The fixture decodes the base64 blob {blob} into bytes for the parser test.")
        out.append(f"sha256:{g.rand(64, HEX)} is the pinned image digest.")
    # URLs without credentials
    hosts = ["github.com/org/repo/pull/42", "docs.python.org/3/library/re.html", "example.com:8443/api/v1/items?page=2&limit=50",
             "localhost:8000/health", "registry.npmjs.org/lodash", "pypi.org/project/hypothesis/"]
    for h, scheme in itertools.product(hosts, ["https", "http"]):
        out.append(f"See {scheme}://{h} for details.")
    out += ["Remote is git@github.com:org/repo.git.", "Mirror: ssh://git@gitlab.com:22/org/repo.git",
            "postgres://app@localhost:5432/app has no password in dev.",
            "DATABASE_URL=postgresql://{user}:{password}@{host}/{db} is templated at runtime."]
    # code identifiers and config without secrets
    for fn in funcs:
        out.append(f"`{fn}()` raises ValueError when the input is empty.")
        out.append(f"def {fn.split('.')[-1].lower()}(token: str, password: str | None = None) -> bool: ...")
    refs = ["$TOKEN", "${GITHUB_TOKEN}", "<your password>", "os.environ['API_KEY']", 'os.getenv("DB_PASSWORD")',
            "settings.SECRET_KEY", "${{ secrets.NPM_TOKEN }}", "{{ vault_password }}", "None", '""', "********",
            "getpass.getpass()", "process.env.STRIPE_KEY", "$(gh auth token)", "[REDACTED]"]
    keys = ["password", "DB_PASSWORD", "token", "GITHUB_TOKEN", "api_key", "OPENAI_API_KEY", "client_secret", "secret"]
    seps = ["=", ": ", " = ", "="]
    for k, r in itertools.product(keys, refs):
        out.append(f"{k}{g.rng.choice(seps)}{r}")
    # harmless key=value config
    configs = ["password_min_length=12", "token_url=https://oauth2.example.com/token", "max_tokens=4096",
               "token_type=bearer", "SECRET_KEY_FILE=/run/secrets/django", "PWD=/home/dev/project",
               "primary_key=id", "sort_key: created_at", "api_key_header: X-API-Key", "timeout: 30s",
               "retries=3", "log_level=INFO", "DB_HOST=localhost", "DB_PORT=5432", "cache_ttl=300",
               "AWS_REGION=eu-west-1", "AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID", "tokens_per_minute=90000",
               "password: null", "password: str", "api_key: Optional[str] = None"]
    out += configs
    # prose with the words
    prose = ["We need to reset the password flow before launch.", "The token bucket limiter allows 10 rps.",
             "Never commit secrets; use the vault.", "Rotate API keys every 90 days.",
             "The key is to keep writes idempotent.", "Bearer tokens expire after an hour.",
             "Basic authentication is disabled in production.", "password: must be at least 12 characters",
             "token: see the vault entry", "The sk-learn alias is just a name.",
             "AKIA prefixes mark AWS access key ids.", "JWTs start with eyJ.", "ghp_ tokens are classic GitHub PATs.",
             "Stripe publishable keys start with pk_live_ and are public.",
             "The secret sauce is caching.", "Use --password-stdin with docker login.",
             "x-api-key header is required for /v1/ingest.", "if password == confirm_password:",
             "conn = connect(password=password, user=user)", "client = Client(token=access_token)"]
    for p, suffix in itertools.product(prose, ["", " (noted 2024-05-01)", " See ADR-0007."]):
        out.append(p + suffix)
    # certificates and public keys are not private keys
    out.append("-----BEGIN CERTIFICATE-----\n" + g.rand(64, ALNUM + "+/") + "\n-----END CERTIFICATE-----")
    out.append("-----BEGIN PUBLIC KEY-----\n" + g.rand(64, ALNUM + "+/") + "\n-----END PUBLIC KEY-----")
    return out


# ------------------------------------------------------------------------------ negatives

PROVIDERS = ["heroku", "snyk", "twilio", "datadog", "sentry", "stripe", "github", "slack", "aws", "azure", "okta",
             "algolia", "mailgun", "cloudflare", "vercel", "netlify", "jenkins", "circleci", "pagerduty", "hubspot"]


def _lookalikes(g: _Gen) -> list[str]:
    """Strings that look like secrets and are not: hashes, ids, digests, placeholders, references."""
    r = g.rand
    out: list[str] = []
    for p in PROVIDERS:  # ids next to provider names are not keys
        out += [
            f"The {p} app id is {g.uuid()}; see the dashboard.",
            f"{p} org {g.uuid()} owns the billing project.",
            f"{p.upper()}_PROJECT_ID={g.uuid()}",
            f"Deployed {p} release {r(40, HEX)} to staging.",
            f"{p} request id {r(24, HEX)} failed with 502.",
            f"Rotate the {p} API key every 90 days (runbook in the wiki).",
            f"{p.upper()}_API_KEY=${{{p.upper()}_API_KEY}}",
            f'{p}_token = os.environ["{p.upper()}_TOKEN"]',
            f"{p}: api_key: {{{{ vault_{p}_key }}}}",
            f"The {p} webhook URL lives in 1Password, not in the repo.",
        ]
    for _ in range(60):  # commit hashes, short and long, in many sentences
        sha = r(40, HEX)
        out += [f"Fixed in {sha[:7]}; see {sha}.", f"git revert {sha[:12]}", f"Merge commit {sha} into release/2.3"]
    for _ in range(40):  # UUIDs, ULIDs, object ids
        out += [f"trace_id={g.uuid()}", f"Object {g.uuid()} was archived.",
                f"ULID {r(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} sorts by time.",
                f"mongo _id: {r(24, HEX)}", f"idempotency-key: {g.uuid()}"]
    for _ in range(40):  # base64 test data, digests, integrity strings
        blob = base64.b64encode(bytes(g.rng.getrandbits(8) for _ in range(g.rng.randint(24, 60)))).decode()
        out += [f'fixture = base64.b64decode("{blob}")', f"sha256sum: {r(64, HEX)}  dist/app.tar.gz",
                f'"integrity": "sha512-{r(86, B64)}=="', f"ETag: \"{r(32, HEX)}\"", f"docker pull app@sha256:{r(64, HEX)}",
                f"go.sum: example.com/mod v1.2.3 h1:{r(43, B64)}="]
    for _ in range(30):  # cloud resource ids and build artefacts
        out += [f"instance i-0{r(16, HEX)} in subnet-0{r(16, HEX)}", f"arn:aws:iam::{_digits(g, 12)}:role/deploy",
                f"bundle main.{r(8, HEX)}.js and vendor.{r(20, HEX)}.css", f"pod web-{r(10, LOWER_DIGITS)}-{r(5, LOWER_DIGITS)}",
                f"Drive file https://drive.google.com/file/d/{r(33, URLSAFE)}/view", f"youtube.com/watch?v={r(11, URLSAFE)}",
                f"Slack channel C{r(10, UPPER_DIGITS)} and user U{r(10, UPPER_DIGITS)}"]
    placeholders = [
        J("sk", "-xxxxxxxxxxxxxxxxxxxxxxxx"), J("sk", "-..."), J("sk", "-your-key-here"), "<your-token>", "<YOUR_API_KEY>",
        J("gh", "p_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"), J("AK", "IAXXXXXXXXXXXXXXXX"), "YOUR_API_KEY", "changeme",
        "********", "xxxxxxxx", "${API_KEY}", "$TOKEN", "{{ secrets.API_TOKEN }}", "<redacted>", "REPLACE_ME",
        J("xo", "xb-your-bot-token"), J("AI", "zaXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"), "sk_test_...", "your-password-here",
        J("hf", "_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), J("glp", "at-xxxxxxxxxxxxxxxxxxxx"), "npm_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    ]
    for ph in placeholders:
        out += [f"API_KEY={ph}", f'token: "{ph}"', f"Set OPENAI_API_KEY to {ph} in your .env.",
                f"curl -H 'Authorization: Bearer {ph}' https://api.example.com"]
    out += [
        "postgres://app@localhost:5432/app has no password in dev.",
        "DATABASE_URL=postgresql://${DB_USER}:${DB_PASS}@db:5432/app",
        "redis://:${REDIS_PASSWORD}@cache:6379/0",
        "https://{user}:{password}@example.com is the template",
        "mysql -u root -p app   # prompts for the password",
        "curl -u $USER:$TOKEN https://api.example.com",
        "docker login -u ci --password-stdin < token.txt",
        "Use sshpass -f ~/.pw rather than -p on the command line.",
        "The token bucket refills 10 tokens per second.",
        "Keys are sorted by created_at, then by id.",
        "The secret to fast tests is not touching the network.",
        "password_min_length: 12\npassword_max_age_days: 90",
        "api_key_header: X-API-Key\ntoken_url: https://auth.example.com/oauth/token",
        "max_tokens: 4096\nnum_tokens: 512",
        'secretName: "db-credentials"  # a Kubernetes Secret object\'s name',
        "AWS_REGION=eu-west-1\nAWS_DEFAULT_OUTPUT=json",
        "The HMAC is computed over the raw body with the webhook secret from the vault.",
        "JWTs start with eyJ; ours expire after 15 minutes.",
        "Stripe test cards: 4242 4242 4242 4242.",
        "pk_test_ keys are publishable and fine in the frontend.",
        "Twilio account SIDs start with AC; keep the auth token out of the repo.",
        "Heroku API keys are UUIDs; find yours under Account settings.",
        "The Discord bot token has three dot-separated parts.",
    ]
    return out


def negatives() -> list[str]:
    g = _Gen(SEED + 1)
    return _ordinary(g) + _lookalikes(g)

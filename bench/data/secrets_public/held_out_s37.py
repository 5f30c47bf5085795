"""Build held_out_s37.json: two more secret scanners' own test material, held out (session 37).

    python bench/data/secrets_public/held_out_s37.py

Typed from the files (repository, commit and path per file below) and committed before any detector here ran
on them. Neither source was read here before:

* Checkmarx/2ms (Apache-2.0): ``engine/rules/*_test.go``, the ``truePositives`` each rule's test must detect and
  the ``falsePositives`` it must not. 2ms prints its tests' samples rendered in ~26 syntax templates (Go, Java,
  PHP, YAML, JSON, XML, .ini inside JSON...), most with a value of its own. Files: the test files among the first
  100 entries of the directory's listing (``1password_secret_key_test.go`` ... ``doppler_test.go``; the listing
  could be read no further), plus eleven looked up by name (``droneci``, ``duffel``, ``easypost``, ``fastly``,
  ``hashicorp``, ``heroku``, ``openai``, ``postman``, ``prefect``, ``pulumi``, ``sendgrid``); per value,
  its first and last rendering in the file (the first files also one from the middle), and every short
  false positive.
* auth0/repo-supervisor (MIT): its integration fixture ``dir.with.secrets`` (the JavaScript and JSON lines its CLI
  test expects reported) and its entropy pre-filters' unit fixtures (CSS selectors, dictionary words, local paths,
  e-mail addresses, URLs without credentials, multiple words, object keys, skipped prefixes): strings its filters
  must drop, so must-not-fire lines.

Go literals are kept as the test file writes them (a ``"..."`` interpreted string is decoded as JSON, a
```...``` raw string taken as is), so the texts are the tests' strings byte for byte. ``secret``: a URL's
password where the case names it, else the longest token of the text holding a digit (a ``name=`` glued in front
of it dropped).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
TWOMS, RS_REPO = "Checkmarx/2ms", "auth0/repo-supervisor"
LICENSES = {TWOMS: "Apache-2.0", RS_REPO: "MIT"}
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json",
                 "kingfisher_3.json", "kingfisher_4.json", "kingfisher_5.json", "held_out_secretlint_trivy.json",
                 "held_out_s34.json", "held_out_s35.json", "held_out_s36.json")
RULES = "engine/rules/"

TWOMS_A = [
    ("1password_secret_key_test.go", "22829d60f02ae3d1c1973a543dffe7babc60dc69", "2ms 1password secret key", [
        r'''"{\n    \"1password_token\": \"A3-2EKK1W-2UYSORSG3GD-8S8YI-IYKJ3-5LKR0\"\n}"''',
        r'''"1passwordToken = 'A3-2EKK1W-2UYSOR-SG3GD-8S8YI-IYKJ3-5LKR0'"''',
        r'''"A3-ASWWYB-798JRY-LJVD4-23DC2-86TVM-H43EB"''',
    ], [
        r'''`A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX`''',
        r'''`A3-xXXXXX-XXXXXX-XXXXX-XXXXX-XXXXX-XXXXX`''',
    ]),
    ("1password_service_account_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms 1password service account", [
        r'''"1password_api_token = \"ops_eyJVa12bLKwYtezxSK/tLPvmI/vyPykbQk3U2nc3D0vK940XeZ0+d5jIGZMNW0Io4gywYbgSol/tdXg0Aahis16Tf/5e6uffL4P1NmjyP587yEAUpkEJX0Qw9BwiW3JwBxBwPH6M5YZ6qtKmk1Zvp5RCrmz80nQFXpiU63jydCKtQyyWt2pogAxCiNsdGPWu5gZa+Wk+47YtkZilkW++e5JVq/P9mVteaFIp3BvHQYLSxMWaHu7ZNH88IcQ5u\""''',
        r'''"    \"sourceContent\": \"ops_eyJlbWFpbCI6ImVqd2U2NHFtbHhocmlAMXBhc3N3b3Jkc2VydmljZWFjY291bnRzLmxjbCIsIm11ayI6eyJhbGciOiJBMjU2R0NNIiwiZXh0Ijp0cnVlLCJrIjoiTThWUGZJYzhWRWZUaGNNWExhS0NLRjhzTWg1Sk1ac1BBdHU5MmZRTmItbyIsImtleV9vcHMiOlsiZW5jcnlwdCIsImRlY3J5cHQiXSwia3R5Ijoib2N0Iiwia2lkIjoibXAifSwic2VjcmV0S2V5IjoiQTMtQzRaSk1OLVBRVFpUTC1IR0w4NC1HNjRNNy1LVlpSTi00WlZQNiIsInNycFgiOiI4NzBkNjdhOWU2MjY2MjVkOWUzNjg1MDc4MDRjOWMzMmU2NjFjNTdlN2U1NTg3NzgyOTFiZjI5ZDVhMjc5YWUxIiwic2lnbkluQWRkcmVzcyI6ImdvdGhhbS5iNWxvY2FsLmNvbTo0MDAwIiwidXNlckF1dGgiOnsibWV0aG9kIjoiU1JQZy00MDk2IiwiYWxnIjoiUEJFUzJnLUhTMjU2IiwiaXRlcmF0aW9ucyI6MTAwMDAwLCJzYWx0IjoiRk1SVVBpeXJONFhmXzhIb2g2WVJYUSJ9fQ\\n\\nops_token is secret.\\n\","''',
    ], [
        r'''`        login:
          serviceAccountToken:
            fn::secret: ops_eyJzaWduSW5B..[Redacted]`''',
        r'''`: To start using this service account, run the following command:
:
: export OP_SERVICE_ACCOUNT_TOKEN=ops_eyJzaWduSW5BZGRyZXNzIjoiaHR0cHM6...`''',
    ]),
    ("adafruit_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms adafruit", [
        r'''"adafruitToken=\"5qnwhukyv3wi7h9etbfrswi6l8yiwhjl\""''',
        r'''"var adafruitToken = \"5qnwhukyv3wi7h9etbfrswi6l8yiwhjl\""''',
        r'''"adafruit_TOKEN :::= \"5qnwhukyv3wi7h9etbfrswi6l8yiwhjl\""''',
    ], []),
    ("adobe_client_secret_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms adobe client secret", [
        r'''"adobeClient := \"p8e-aa9ce26941c1a47dea90041aa3e68fd9\""''',
    ], []),
    ("age_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms age", [
        "<ageToken>\n    AGE-SECRET-KEY-1" + "Q" * 58 + "\n</ageToken>",  # 58 Q's, typed by count
    ], []),
    ("airtable_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms airtable", [
        r'''"airtableToken=i5vb6jwjeqmgmirkq"''',
        r'''"airtableToken = \"i5vb6jwjeqmgmirkq\""''',
        r'''"airtable_TOKEN :::= \"i5vb6jwjeqmgmirkq\""''',
    ], []),
    ("algolia_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms algolia", [
        r'''"string algoliaToken = \"b28323d7b76c4978e305bcbb5149cd88\";"''',
        r'''"algoliaToken := \"b28323d7b76c4978e305bcbb5149cd88\""''',
        r'''"algolia_TOKEN :::= \"b28323d7b76c4978e305bcbb5149cd88\""''',
    ], []),
    ("alibaba_secret_key_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms alibaba secret key", [
        r'''"alibaba_TOKEN ::= \"6rn1zp5u4bfdcw758mx6wgx7glgzqx\""''',
        r'''"System.setProperty(\"ALIBABA_TOKEN\", \"6rn1zp5u4bfdcw758mx6wgx7glgzqx\")"''',
        r'''"alibaba_TOKEN = \"6rn1zp5u4bfdcw758mx6wgx7glgzqx\""''',
    ], []),
    ("anthropic_admin_api_key_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms anthropic admin key", [
        r'''"sk-ant-admin01-abc12fake-456def789ghij-klmnopqrstuvwx-3456yza789bcde-12fakehijklmnopby56aaaogaopaaaabc123xyzAA"''',
        r'''"anthropic_api_token = \"sk-ant-admin01-_60svagz2dc774bcim0ftbzgpg915e4df6jmska4au2ot_mb7j8yg9rywont2rfmctltv5w2579xvvzcez2d6-8n1jpt4AA\""''',
    ], [
        r'''"sk-ant-admin01-abc123xyz-456de-klMnopqrstuvwx-3456yza789bcde-1234fghijklmnopAA"''',
        r'''"sk-ant-admin01-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzBB"''',
    ]),
    ("anthropic_api_key_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms anthropic api key", [
        r'''"sk-ant-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzAA"''',
        r'''"anthropic_api_token = \"sk-ant-api03-9o_neoo9xht6ph4jl3h_6merrf5ttijdwt6253ikkhh165l26eny99q13f6_hcolmofa64v4a6gdnu8sbgwypfmnq8u1zAA\""''',
    ], [
        r'''"sk-ant-api03-abc123xyz-456de-klMnopqrstuvwx-3456yza789bcde-1234fghijklmnopAA"''',
        r'''"sk-ant-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzBB"''',
    ]),
    ("artifactory_api_key_test.go", "17bbdab56434573a79e0f46ea78f8443682e99d7", "2ms artifactory api key", [
        r'''"artifactoryApiKey := \"AKCpun7ticu8kdaj84nu7yi4jonxfl4010lixh16xcgm4x1t528hqupjk1p8mk8jiag7zu7vb\""''',
    ], [
        r'''`lowEntropy := AKCpXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`''',
        r'''"wrongLength := \"AkCpun7ticu8kdaj84nu7yi4jonxfl4010lixh16xcgm4x1t528hqupjk1p8mk8\""''',
        r'''"partOfAlongUnrelatedBlob gYnkgAkCpfoty5jzxcfnsrmz4lya4lcqjuss1sk7bnj0ufk07cmq46opngxv2oacso8hc5z104liy0VyZSB2"''',
    ]),
    ("asana_client_secret_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms asana client secret", [
        r'''"asanaToken = opstbbke0ir9ull3f7qgt0ehl7vdeg22"''',
        r'''"<asanaToken>\n    opstbbke0ir9ull3f7qgt0ehl7vdeg22\n</asanaToken>"''',
        r'''"asana_TOKEN ?= \"opstbbke0ir9ull3f7qgt0ehl7vdeg22\""''',
    ], []),
]
TWOMS_B = [
    ("atlassian_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms atlassian", [
        r'''"{\n    \"atlassian_token\": \"aa8m68ioy75by0an9xe785f3\"\n}"''',
        r'''"confluence_token: 'aa8m68ioy75by0an9xe785f3'"''',
        r'''"jiraToken=dldtlx3vab779zdxfrmoc099"''',
        r'''"jira_TOKEN :::= \"dldtlx3vab779zdxfrmoc099\""''',
        r'''"JIRA_API_TOKEN=HXe8DGg1iJd2AopzyxkFB7F2"''',
        r'''"jiraToken = \"ATATT3xFfGF0K3irG5tKKi-6u-wwaXQFeGwZ-IHR-hQ3CulkKtMSuteRQFfLZ6jihHThzZCg_UjnDt-4Wl_gIRf4zrZJs5JqaeuBhsfJ4W5GD6yGg3W7903gbvaxZPBjxIQQ7BgFDSkPS8oPispw4KLz56mdK-G6CIvLO6hHRrZHY0Q3tvJ6JxE=C63992E6\""''',
        r'''"var jiraToken = \"ATATT3xFfGF0K3irG5tKKi-6u-wwaXQFeGwZ-IHR-hQ3CulkKtMSuteRQFfLZ6jihHThzZCg_UjnDt-4Wl_gIRf4zrZJs5JqaeuBhsfJ4W5GD6yGg3W7903gbvaxZPBjxIQQ7BgFDSkPS8oPispw4KLz56mdK-G6CIvLO6hHRrZHY0Q3tvJ6JxE=C63992E6\""''',
    ], [
        r'''"getPagesInConfluenceSpace,searchConfluenceUsingCql"''',
    ]),
    ("authenticated_url_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms authenticated url", [
        (r'''"https://token12345abcdef:unused@hooks.slack.com/services/T000/B000/XXXX"''', "token12345abcdef"),
        (r'''"https://user123:myStrongP@ssw0rd@registry.example.com/v2/"''', "myStrongP@ssw0rd"),
        (r'''"https://AKIAIOSFODNN7EXAMPLE:abcd1234@aws.amazon.com/bucket/data"''', "abcd1234"),
        (r'''"https://admin:SuperSecret123@myapp.example.com"''', "SuperSecret123"),
    ], []),
    ("authress_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms authress", [
        r'''"authress_TOKEN ::= \"sc_i7z3km4wuf.tx6m.acc_6hwnkejm5d.x7f2nx64-cepuqmzzce799-f8xxjfia7vur7xyop\""''',
        r'''"authress_TOKEN := \"sc_i7z3km4wuf.tx6m.acc_6hwnkejm5d.x7f2nx64-cepuqmzzce799-f8xxjfia7vur7xyop\""''',
    ], []),
    ("aws_test.go", "22829d60f02ae3d1c1973a543dffe7babc60dc69", "2ms aws", [], [
        r'''`key = AKIAXXXXXXXXXXXXXXXX`''',
        r'''`aws_access_key: AKIAIOSFODNN7EXAMPLE`''',
        r'''`msgstr "Näytä asiakirjamallikansio."`''',
        r'''`TODAYINASIAASACKOFRICEFELLOVER`''',
    ]),
]
TWOMS_C = [
    ("beamer_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms beamer", [
        r'''"  \"beamerToken\" => \"b_lw=_afiwoy7m-2=urprdkhplfussqvgi5fjv_cmy2s-h\""''',
        r'''"beamerToken = \"b_lw=_afiwoy7m-2=urprdkhplfussqvgi5fjv_cmy2s-h\""''',
    ], [
        r'''`│   ├── R21A-A-V010SP13RC181024R16900-CN-B_250K-Release-OTA-97B6C6C59241976086FABDC41472150C.bfu`''',
    ]),
    ("bitbucket_client_secret_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms bitbucket client secret", [
        r'''"bitbucket_TOKEN ?= \"2xx420t16sep68pkly88kbhigtukky7mrmyth0nmldbn377e2hhpxnzt35mt4obr\""''',
        r'''"bitbucket_TOKEN ::= \"2xx420t16sep68pkly88kbhigtukky7mrmyth0nmldbn377e2hhpxnzt35mt4obr\""''',
    ], []),
    ("bittrex_secret_key_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms bittrex secret key", [
        r'''"bittrexToken=\"ewyszm781qih0ok9d52bkevxzrchqb7h\""''',
        r'''"bittrex_TOKEN ::= \"ewyszm781qih0ok9d52bkevxzrchqb7h\""''',
    ], []),
]
TWOMS_D = [
    ("clickhouse_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms clickhouse", [
        r'''"ClickHouse_token: 4b1dbRdW3rOcB7xLthrM4BTBGK1qPLkHigpN1bXD6z"''',
        r'''"<ClickHouseToken>\n    4b1dbRdW3rOcB7xLthrM4BTBGK1qPLkHigpN1bXD6z\n</ClickHouseToken>"''',
        r'''"ClickHouseToken = '4b1dljOfXJMuD2S4GV3UM1tEk2DB6xwwCyPBgTRwrq'"''',
        r'''"ClickHouseToken := `4b1dljOfXJMuD2S4GV3UM1tEk2DB6xwwCyPBgTRwrq`"''',
    ], [
        r'''`key = 4b1dXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`''',
    ]),
    ("clojars_test.go", "22829d60f02ae3d1c1973a543dffe7babc60dc69", "2ms clojars", [
        r'''"clojarsToken=\"CLOJARS_4bfq11oxch4ob8rnle9kjmsgejd1pwha6ckhcmct0rkqldsfpqokkvvwoefc\""''',
        r'''"clojars_TOKEN := \"CLOJARS_4bfq11oxch4ob8rnle9kjmsgejd1pwha6ckhcmct0rkqldsfpqokkvvwoefc\""''',
        r'''"CLOJARS_34bf0e88955ff5a1c328d6a7491acc4f48e865a7b8dd4d70a70749037443"''',
    ], []),
    ("cloudflare_global_api_key_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms cloudflare global api key", [
        r'''"cloudflare_token: '037e798550e45925c347151d30f5fe3405a1e'"''',
        r'''"cloudflareToken = 037e798550e45925c347151d30f5fe3405a1e"''',
    ], []),
]
TWOMS_E = [
    ("codecov_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms codecov", [
        r'''"codecovToken = \"sk426s9rtd2dyxmchsd0g5dx20zqqdio\""''',
        r'''"codecov_TOKEN ?= \"sk426s9rtd2dyxmchsd0g5dx20zqqdio\""''',
    ], []),
    ("cohere_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms cohere", [
        r'''"cohere_api_token = \"8heg9kc4F0uHh7WiPWcQ2puihG6b5JR8gb0pyJo8\""''',
        r'''"export CO_API_KEY=8heg9kc4F0uHh7WiPWcQ2puihG6b5JR8gb0pyJo8"''',
    ], [
        r'''`CO_API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`''',
    ]),
]
TWOMS_F = [
    ("coinbase_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms coinbase", [
        r'''"coinbaseToken = '_lobtsmct2rizqh04jb8772k2md13gyeyrgahfsc9brmo_b-0zhe0v-mo-olf30m'"''',
        r'''"$coinbaseToken .= \"_lobtsmct2rizqh04jb8772k2md13gyeyrgahfsc9brmo_b-0zhe0v-mo-olf30m\""''',
    ], []),
    ("confluent_secret_key_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms confluent secret key", [
        r'''"confluentToken = \"b8k6mz6l4bbcxmbfo2olbnh4m8lssqygaplqneo62s2gsysy8knkgjbup5lhrg57\""''',
        r'''"confluent_TOKEN :::= \"b8k6mz6l4bbcxmbfo2olbnh4m8lssqygaplqneo62s2gsysy8knkgjbup5lhrg57\""''',
    ], []),
]
TWOMS_G = [
    ("contentful_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms contentful", [
        r'''"$contentfulToken .= \"3erlcg6cvoqdumi6x752piedfeyin13dlz9wc6hj1ig\""''',
        r'''"string contentfulToken = \"3erlcg6cvoqdumi6x752piedfeyin13dlz9wc6hj1ig\";"''',
    ], []),
    ("databricks_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms databricks", [
        r'''"System.setProperty(\"DATABRICKS_TOKEN\", \"dapi4d332ee2c7d03f21ad34dc322982290c\")"''',
        r'''"databricksToken = \"dapi4d332ee2c7d03f21ad34dc322982290c\""''',
    ], [
        r'''`DATABRICKS_TOKEN=dapi123456789012345678a9bc01234defg5`''',
    ]),
    ("datadog_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms datadog", [
        r'''"datadogToken = \"ayen4o4yr80wpo1bgnyadugz46eqq3ik4287h3zw\""''',
        r'''"var datadogToken = \"ayen4o4yr80wpo1bgnyadugz46eqq3ik4287h3zw\""''',
    ], []),
]
TWOMS_H = [
    ("definednetworking_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms defined networking", [
        r'''"dnkey_TOKEN ::= \"dnkey-5ae44c7musw8f70owbulcot0rr-5ae44c7musw8f70owbulcot0rrq1v=ysmx4owp0vno=y488v2qeb\""''',
        r'''"dnkey_TOKEN := \"dnkey-5ae44c7musw8f70owbulcot0rr-5ae44c7musw8f70owbulcot0rrq1v=ysmx4owp0vno=y488v2qeb\""''',
    ], []),
    ("digitalocean_pat_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms digitalocean pat", [
        r'''"do_token: dop_v1_8b2952adf472fd7273538c1c15bfe8ab23e9ac876ad83b324165302e04f3e480"''',
        r'''"doToken = \"dop_v1_8b2952adf472fd7273538c1c15bfe8ab23e9ac876ad83b324165302e04f3e480\""''',
    ], []),
    ("discord_api_token_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms discord api token", [
        r'''"$discordToken .= \"eaa48d2cb6ca5a848fece5197048b20a80af5afda77d32a30eeed9e80a4fc30a\""''',
        r'''"String discordToken = \"eaa48d2cb6ca5a848fece5197048b20a80af5afda77d32a30eeed9e80a4fc30a\";"''',
    ], []),
]
TWOMS_I = [
    ("digitalocean_access_token_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms digitalocean oauth token", [
        r'''"<doToken>\n    doo_v1_ad468cec672dfdd406808a31faa39493a96075c0276372adf619ac643e66d8cd\n</doToken>"''',
        r'''"  \"doToken\" => \"doo_v1_ad468cec672dfdd406808a31faa39493a96075c0276372adf619ac643e66d8cd\""''',
    ], []),
    ("discord_client_secret_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms discord client secret", [
        r'''"  \"discordToken\" => \"60210628263064570884093939025160\""''',
        r'''"String discordToken = \"60210628263064570884093939025160\";"''',
    ], [
        r'''`discord=00000000000000000000000000000000`''',
    ]),
    ("doppler_test.go", "150e3cab75be8afba0638e9dc88a7baa94298072", "2ms doppler", [
        r'''"dopplerToken := \"dp.pt.3821ku9kup9sz6dad3bwmccmsxvd8qybquupsyqwr8v\""''',
        r'''"var dopplerToken string = \"dp.pt.3821ku9kup9sz6dad3bwmccmsxvd8qybquupsyqwr8v\""''',
    ], []),
]
TWOMS_J = [
    ("hashicorp_test.go", "a2d9568080869455347324c66813afed9f9d3f55", "2ms hashicorp terraform", [
        r'''"{\n    \"hashicorpToken_token\": \"275af53921b8f9.atlasv1.52hsqvtyyer80buyzswube=h-xvvqvjaf-n9fvchn=x643ltobb0x3c7t3n0\"\n}"''',
        r'''"hashicorpToken_TOKEN ::= \"275af53921b8f9.atlasv1.52hsqvtyyer80buyzswube=h-xvvqvjaf-n9fvchn=x643ltobb0x3c7t3n0\""''',
        r'''`#token = "hE1hlYILrSqpqh.atlasv1.ARjZuyzl33F71WR55s6ln5GQ1HWIwTDDH3MiRjz7OnpCfaCb1RCF5zGaSncCWmJdcYA"`''',
    ], [
        r'''`token        = "xxxxxxxxxxxxxx.atlasv1.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"`''',
    ]),
]
TWOMS_K = [
    ("heroku_test.go", "446c967d5cb1c46bef9ef3e4ec31fa42c937c650", "2ms heroku", [
        r'''"herokuToken = \"af94302f-4563-5462-bf92-1cfff796ad57\""''',
        r'''"herokuToken = 'af94302f-4563-5462-bf92-1cfff796ad57'"''',
        r'''"const HEROKU_KEY = \"12345678-ABCD-ABCD-ABCD-1234567890AB\""''',
        r'''"heroku_api_key = \"832d2129-a846-4e27-99f4-7004b6ad53ef\""''',
    ], []),
    ("easypost_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms easypost", [
        r'''"EZAKToken = \"EZAKE9F4EvBnXB2Pr0Rd0NPHpsenHy7iwMli0NeUjzg25jhl7NWUjuitzC\""''',
        r'''"EZAKToken=\"EZAKE9F4EvBnXB2Pr0Rd0NPHpsenHy7iwMli0NeUjzg25jhl7NWUjuitzC\""''',
        r'''"EZAKQUWxFhB05riqccjSSBoVzCyQinFc2D90rbItTY3gRSn6bcwTEmEzgY"''',
        r'''"example.com?t=EZAKQUWxFhB05riqccjSSBoVzCyQinFc2D90rbItTY3gRSn6bcwTEmEzgY&q=1"''',
    ], [
        r'''`...6wqX6fNUXA/rYqRvfQ+EZAKGqQRiRyqAFRQshGPWOIAwNWGORfKHSBnVNFtVmWYoW6PH23lkqbbDWep95C/3VmWq/edti6...`''',
    ]),
]

TWOMS_L = [
    ("droneci_test.go", "a2d9568080869455347324c66813afed9f9d3f55", "2ms drone ci", [
        r'''"var droneciToken = \"z0fursjdrucdemvclz7foi69ywcmpytq\""''',
        r'''"droneciToken := `z0fursjdrucdemvclz7foi69ywcmpytq`"''',
    ], []),
    ("duffel_test.go", "446c967d5cb1c46bef9ef3e4ec31fa42c937c650", "2ms duffel", [
        r'''"duffel_TOKEN ::= \"duffel_test_=3hohxcvsikfv-ja4nbtsihjmq0vqr81cvkfgbrsn12\""''',
        r'''"var duffelToken = \"duffel_test_=3hohxcvsikfv-ja4nbtsihjmq0vqr81cvkfgbrsn12\""''',
    ], []),
    ("fastly_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms fastly", [
        r'''"fastlyToken = '5k9qr6t47si_e83jioh0u2v4m5d6nrv9'"''',
        r'''"$fastlyToken .= \"5k9qr6t47si_e83jioh0u2v4m5d6nrv9\""''',
    ], []),
    ("openai_test.go", "446c967d5cb1c46bef9ef3e4ec31fa42c937c650", "2ms openai", [
        r'''"{\n    \"openaiApiKey_token\": \"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\"\n}"''',
        r'''"openaiApiKey_TOKEN ::= \"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\""''',
        r'''"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"''',
        r'''"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"''',
        r'''"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"''',
        r'''"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"''',
        r'''"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"''',
        r'''"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"''',
        r'''"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"''',
        r'''"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"''',
        r'''"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"''',
    ], []),
    ("sendgrid_test.go", "a2d9568080869455347324c66813afed9f9d3f55", "2ms sendgrid", [
        r'''"  \"sengridAPITokenToken\" => \"SG._xxgmrv80c_d=gqno05eb1njivvb=y3my-ft=n2kss6xdw2llkmq_7zvyas0jg7o1d\""''',
        r'''"sengridAPITokenToken = 'SG._xxgmrv80c_d=gqno05eb1njivvb=y3my-ft=n2kss6xdw2llkmq_7zvyas0jg7o1d'"''',
    ], []),
    ("pulumi_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms pulumi", [
        r'''"pulumi-api-tokenToken = 'pul-fe651103326a96c921d61bb13f03341a30c1ef0d'"''',
        r'''"String pulumi-api-tokenToken = \"pul-fe651103326a96c921d61bb13f03341a30c1ef0d\";"''',
    ], [
        r'''`                        <img src="./assets/vipul-f0eb1acf0da84c06a50c5b2c59932001997786b176dec02bd16128ee9ea83628.png" alt="" class="w-16 h-16 rounded-full">`''',
    ]),
    ("postman_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms postman", [
        r'''"postmanAPItoken_TOKEN ::= \"PMAK-8b614192e19ce588446c26b0-8b614192e19ce588446c26b057fe9cabbe\""''',
        r'''"postmanAPItoken_TOKEN = \"PMAK-8b614192e19ce588446c26b0-8b614192e19ce588446c26b057fe9cabbe\""''',
    ], []),
    ("prefect_test.go", "2ba946c9cb472ed707022dd66fbc504a1a62bd24", "2ms prefect", [
        r'''"<api-tokenToken>\n    pnu_473ax9mdi5larwiwk7k16turpxdh5kuyir0u\n</api-tokenToken>"''',
        r'''"api-tokenToken = pnu_473ax9mdi5larwiwk7k16turpxdh5kuyir0u"''',
    ], [
        r'''`PREFECT_API_KEY = "pnu_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"`''',
    ]),
]

TWOMS_FILES = (TWOMS_A + TWOMS_B + TWOMS_C + TWOMS_D + TWOMS_E + TWOMS_F + TWOMS_G + TWOMS_H + TWOMS_I + TWOMS_J
               + TWOMS_K + TWOMS_L)

RS = "auth0/repo-supervisor"
RS_BAR = ("3e299423295461375a32733bf5139ffa49ce9e8f", "test/fixtures/integration/dir.with.secrets/foo/bar.js")
RS_JSON = ("7ca2c79040f7c59a71166ee3cc63857fbcf52e8d", "test/fixtures/integration/dir.with.secrets/foo/foo.json")
PF = "test/fixtures/unit/src/filters/entropy.meter/pre.filters/"

# (commit, path, group, label, [line or (line, secret)])
REPO_SUPERVISOR = [
    (*RS_BAR, "repo-supervisor js secrets", "secret", [
        ("const FOO_BAR_SECRET_LOOKS_LIKE_KEY_ID = 'zJd-55qmsY6LD53CRTqnCr_g-';", "zJd-55qmsY6LD53CRTqnCr_g-"),
        ("  getSecret: () => 'gm5yb-hJWRoS7ZJTi_YUj_tbU',", "gm5yb-hJWRoS7ZJTi_YUj_tbU"),
        ("    KEY_IDENTIFIER: 'GxC56B6x67anequGYNPsW_-TL',", "GxC56B6x67anequGYNPsW_-TL"),
        ("    'MLTk-BuGS8s6Tx9iK5zaL8a_W': '2g877BA_TsE-WoPoWrjHah9ta',", "2g877BA_TsE-WoPoWrjHah9ta"),
    ]),
    (*RS_BAR, "repo-supervisor js secrets", "benign", [
        "    foobar: FOO_BAR_SECRET_LOOKS_LIKE_KEY_ID,",
        "    test: 'hello-world'",
    ]),
    (*RS_JSON, "repo-supervisor json secrets", "secret", [
        ('  "FOO_BAR": "q28Wt3nAmLt_3NGpqi2qz-jQ7",', "q28Wt3nAmLt_3NGpqi2qz-jQ7"),
        ('  "d7kyociU24P9hJ_sYVkqzo-kE": "foobar",', "d7kyociU24P9hJ_sYVkqzo-kE"),
    ]),
    (*RS_JSON, "repo-supervisor json secrets", "benign", [
        '  "FOO": "no-secret",',
        '  "THIS_IS_AN_OBJECT_KEY": "foobar"',
    ]),
    ("3e299423295461375a32733bf5139ffa49ce9e8f", PF + "css.selectors.json", "repo-supervisor css selectors", "benign", [
        "#foo-bar", "#foo.bar", "#foo_bar", ".foo-bar", ".foo_bar", ".foo.bar",
        "#foo[value='bar']", '#foo[value="bar"]', "#foo[value^='bar']", '#foo[value^="bar"]',
        ".foo[value='bar']", '.foo[value="bar"]', ".foo[value^='bar']", '.foo[value^="bar"]',
        "input[value='bar']", 'input[value="bar"]', "button[value^='bar']", 'button[value^="bar"]',
        "[value='bar']", '[value="bar"]', "[value^='bar']", '[value^="bar"]',
        "foo>bar", "#foo>bar", "#foo>.bar", "#foo>#bar", ".foo>bar", ".foo>#bar", ".foo>.bar",
    ]),
    ("09474a683ca01f8c07ddd02274f8eccf3797ff44", PF + "dictionary.words.json", "repo-supervisor dictionary words", "benign", [
        "thisIsTotallyASetOfRealWords", "ThisHasSomeThwnflWords", "monitoredByTheCIAInterpreter",
        "GenerateHTMLParser", "set123ofStuff",
        "totally-a-real-set-of-words", "contains-myspyled-wurds-too", "the-numbers-123-are-great",
        "underscore_can_be_used", "mixing_separators_for_fun-and-profit", "UPPER-CASE-PHRASE",
        "mixing.separators,for.fun-and-profits", "totally.a.real.set.of.words", "totally,a,real,set,of,words",
        "some-words-are-camelCased-but-some-areNot", "CapitalLettersCanDoSome-WeirdStuff",
    ]),
    ("3e299423295461375a32733bf5139ffa49ce9e8f", PF + "local.paths.json", "repo-supervisor local paths", "benign", [
        "/etc/foo/bar", "./etc/foobar/", "../../etc/foobar", "./../etc/foo/bar", "//etc/foobar", "./../etc/foo//bar//",
    ]),
    ("1ff661398e5d0c427a9a8303f706bf6c3b49ab44", PF + "email.addresses.json", "repo-supervisor e-mail addresses", "benign", [
        "john.doe@example.com", "john.doe+test@example.com", "john+doe@example.com", "john.doe@example.museum",
        "john.doe+test@example.museum", "john.doe_test+foobar@example.com", "john@example.museum",
        "john@doe.example.com", "no-reply@example0.com", "test1@example2.com", "test2@example-1-2.com",
        "test@example.1.2.com",
    ]),
    ("3e299423295461375a32733bf5139ffa49ce9e8f", PF + "authentication.urls.json", "repo-supervisor urls", "benign", [
        "http://www.google.com/", "https://www.google.com/", "ftp://localhost:21/", "http://www.google.com/test:foobar@/abc",
        "http://:@www.google.com/", "https://:@www.google.com/", "ftp://:@localhost:21/",
        "http://:@www.google.com/test:foobar@/abc",
    ]),
    ("3e299423295461375a32733bf5139ffa49ce9e8f", PF + "multiple.words.json", "repo-supervisor multiple words", "benign", [
        "foo bar", "foo bar foo", "foo       bar", "fo1o    bar  fo4o       bar", "fOO bAr FOO bar",
    ]),
    ("7ca2c79040f7c59a71166ee3cc63857fbcf52e8d", PF + "object.keys.identifiers.json", "repo-supervisor object keys", "benign", [
        "FOO_BAR_SECRET", "AMAZON_ACCESS_KEY", "SLACK_ACCESS_KEY",
    ]),
    ("7ca2c79040f7c59a71166ee3cc63857fbcf52e8d", PF + "skip.prefixes.json", "repo-supervisor skipped prefixes", "benign", [
        "foobar-hello", "foo_bar-example", "foo-bar_hello", "?foobar", "?_FOO_BAR_hEllO",
        "foobar", "foo_bar", "foo-bar", "?_FOO_BAR_",
    ]),
    ("05c3e24b17badfb128788f998121e83007203f38", PF + "whitelist.json", "repo-supervisor whitelist", "benign", [
        "foo", "bar", "test",
    ]),
    ("3e299423295461375a32733bf5139ffa49ce9e8f", PF + "multiple.words.json", "repo-supervisor single words", "benign", [
        "T3st", "fooBar", "FoObAr",
    ]),
]

SKIPPED = {
    "ids_not_secrets": [
        "2ms aws_test.go's true positives (AKIA/ASIA/ABIA/ACCA access key ids): ids, not credentials, as in the "
        "earlier parts; its short false positives are kept",
        "the client-id and access-key-id rules (adobe_client_id, asana_client_id, bitbucket_client_id, "
        "discord_client_id, alibaba_access_key, bittrex_access_key): not read; twilio_test.go (SK... API key SIDs, "
        "ids like the Twilio SIDs the earlier parts left out)",
    ],
    "already_in_gitleaks": [
        "2ms curl_header_auth_test.go, curl_basic_auth_test.go and cloudflare_origin_ca_key_test.go: gitleaks' own "
        "cases, copied into 2ms (their values are in gitleaks.json); not transcribed",
    ],
    "another_credentials_shape": [
        "a false positive that is another rule's credential (anthropic's sk-ant-admin01 key in the api-key test and "
        "the reverse; cloudflare's API tokens and origin CA keys in the global-key test): labelling them benign "
        "would count a right redaction as a false positive",
        "a false positive holding a true positive's very value (artifactory's wrongStart, the tp with one letter "
        "lower-cased; clickhouse's adf<tp>): anyone reading it holds the credential",
    ],
    "not_transcribed": [
        "2ms 1password_service_account_test.go's two 900-character export/PYTEST tokens and its 400-character low-"
        "entropy false positive; aws_test.go's 3,000-character DNA false positive",
        "2ms artifactory_reference_token_test.go: no cases",
        "repo-supervisor's foo.yaml/foo.yml (its CLI test names no finding in them), its notWords / "
        "shouldNotMatch lists (strings its filters keep, no label), its randomSecrets (bare random strings for "
        "the entropy meter, no context), its URLs with credentials (the filter's expectation was not read)",
        "2ms rule test files after the 100th entry of the listing other than the three looked up by name "
        "(github, gitlab, huggingface, dropbox, mailgun, grafana, shopify, linear were looked up and not found in the index; "
        "dynatrace_test.go's samples are generated at test time)",
    ],
}


def go_literal(lit: str) -> str:
    """A Go string literal as written in the test file: ``"..."`` (escapes as JSON) or ```...``` (raw)."""
    if lit.startswith("`") and lit.endswith("`"):
        return lit[1:-1]
    if lit.startswith('"') and lit.endswith('"'):
        return json.loads(lit)
    return lit  # typed by count (age's 58 Q's), already a plain string


_TOKEN = re.compile(r"[A-Za-z0-9+/_.~=-]+")
_KEY_PREFIX = re.compile(r"^[A-Za-z_]*(?:Token|TOKEN|KEY|t)=")  # a setting's name glued to its value: key=value


def longest_secret(text: str) -> str:
    """The longest token holding a digit (else the longest token), without a ``name=`` glued in front of it."""
    tokens = [_KEY_PREFIX.sub("", t) for t in _TOKEN.findall(text)]
    with_digit = [t for t in tokens if any(ch.isdigit() for ch in t)]
    pool = with_digit or tokens
    return max(pool, key=len)


_VALUE = re.compile(r"[A-Za-z0-9_+/.~-]{16,}")
_KEY_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # a setting's name, not a value


def _distinct_values(text: str) -> list[str]:
    """The text's long random-looking runs (a digit and at least five different characters): what identifies a value."""
    return [t for t in _VALUE.findall(text) if any(ch.isdigit() for ch in t) and len(set(t)) >= 5
            and not _KEY_NAME.fullmatch(t)]


def _items():
    for path, commit, group, tps, fps in TWOMS_FILES:
        src = (TWOMS, commit, RULES + path)
        for lit in tps:
            lit, secret = lit if isinstance(lit, tuple) else (lit, None)
            text = go_literal(lit)
            yield src, group, "secret", text, secret if secret is not None else longest_secret(text)
        for lit in fps:
            yield src, group, "benign", go_literal(lit), None
    for commit, path, group, label, lines in REPO_SUPERVISOR:
        for item in lines:
            text, secret = item if isinstance(item, tuple) else (item, None)
            yield (RS_REPO, commit, path), group, label, text, secret


def main() -> None:
    seen_texts: set[str] = set()
    for name in OTHER_CORPORA:
        for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]:
            seen_texts.add(c["text"])
    seen_blob = "\n".join(seen_texts)
    cases, duplicates, value_seen, counters, own_texts = [], [], [], {}, set()
    for (repo, commit, path), group, label, text, secret in _items():
        tag = "tp" if label == "secret" else "fp"
        counters[(group, tag)] = n = counters.get((group, tag), 0) + 1
        cid = f"{group}/{tag}{n}"
        if text in seen_texts or text in own_texts:
            duplicates.append(cid)
            continue
        values = [secret] if secret is not None and len(secret) >= 12 else _distinct_values(text)
        if any(v in seen_blob for v in values):
            value_seen.append(cid)
            continue
        if (label == "secret") != (secret is not None):
            raise SystemExit(f"{cid}: a secret line names its secret, a benign line does not")
        if secret is not None and secret not in text:
            raise SystemExit(f"{cid}: the secret {secret!r} is not in the text")
        own_texts.add(text)
        case = {"id": f"held-out-s37/{cid}", "group": group, "label": label, "text": text,
                "source": f"{repo}@{commit} {path}", "license": LICENSES[repo]}
        if label == "secret":
            case["secret"] = secret
        cases.append(case)
    out = {
        "source": {
            "repo": f"{TWOMS} and {RS_REPO}",
            "license": f"Apache-2.0 ({TWOMS}), MIT ({RS_REPO})",
            "paths": {TWOMS: RULES + "*_test.go",
                      RS_REPO: "test/fixtures/integration/dir.with.secrets/foo/*, " + PF + "*.json"},
            "commits": "per case",
            "split": ("held-out (fresh, session 37; typed and committed before any detector here ran on it; "
                      "neither source was read here before)"),
        },
        "skipped": {**SKIPPED, "already_in_another_corpus_or_repeated": duplicates,
                    "value_already_in_another_corpus": value_seen},
        "cases": cases,
    }
    (HERE / "held_out_s37.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in secrets})} secret groups; "
          f"{len(duplicates)} duplicates skipped: {duplicates}; {len(value_seen)} with a value seen elsewhere: {value_seen}")


if __name__ == "__main__":
    main()
